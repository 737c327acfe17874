import type { Test } from 'tap';
import { createApp, type App } from '../../core/kernel/app.js';
import { builtinAdapters } from '../../adapters/index.js';
import { builtinPlugins } from '../../plugins/index.js';
import { testConfig, dropTestSchema } from './db.js';
import { pgliteTemplate } from '../../core/data/pglite-template.js';

/**
 * A whole service for one test: embedded or real database and bus (see testConfig), started
 * without listening; use `app.server.inject`. Stopped and cleaned up at teardown.
 */
export async function startTestApp(
  t: Test,
  overrides: Record<string, unknown> = {},
  opts: { scheduler?: boolean } = {},
): Promise<App> {
  const config = testConfig(overrides);
  const app = await createApp(config, {
    plugins: builtinPlugins,
    adapters: builtinAdapters,
    pgliteTemplate: config.database.url ? undefined : await pgliteTemplate(),
  });
  await app.start({ listen: false, scheduler: opts.scheduler ?? false });
  t.teardown(async () => {
    await app.stop();
    await dropTestSchema(config);
  });
  return app;
}
