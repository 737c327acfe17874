import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createDatabase } from '../../core/data/db.js';
import { migrateLatest } from '../../core/data/migrate.js';
import { pgliteTemplate } from '../../core/data/pglite-template.js';
import { loadConfig } from '../../core/kernel/config.js';

const skip = process.env.DATABASE_URL ? 'embedded engine only' : false;

t.test('a fresh embedded data directory starts from the migrated template and keeps its data', { skip }, async (t) => {
  await pgliteTemplate();
  const dataDir = mkdtempSync(join(tmpdir(), 'patchwell-fresh-'));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadConfig({ env: { DATA_DIR: dataDir } });

  const first = createDatabase(config).db;
  t.same(await migrateLatest(first), [], 'every migration is already applied: no initdb, no migration run');
  await first('organizations').insert({
    id: 'org_template_test',
    name: 'Kept',
    slug: 'kept-template-test',
    plan: 'none',
  });
  await first.destroy();

  const again = createDatabase(config).db;
  t.same(await migrateLatest(again), [], 'reopened as it is, not reloaded from the template');
  t.match(
    await again('organizations').where({ id: 'org_template_test' }).first('name'),
    { name: 'Kept' },
    'the data written is still there',
  );
  await again.destroy();
});
