import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { Test } from 'tap';
import { createApp, type App } from '../../core/kernel/app.js';
import type { Role } from '../../core/kernel/plugin.js';
import { builtinAdapters } from '../../adapters/index.js';
import { builtinPlugins } from '../../plugins/index.js';
import { createLogger } from '../../core/kernel/logger.js';
import { testConfig, dropTestSchema } from '../helpers/db.js';
import { pgliteTemplate } from '../../core/data/pglite-template.js';
import { call, type Call, type Caller } from '../helpers/call.js';
import type { Workspace } from '../helpers/workspaces.js';
export { call, type Call, type Caller };

/** Every operation on: the fix loop, the runner and MCP plugins are off in other tests' config. */
export const ALL_PLUGINS = { plugins: { fixes: { enabled: true }, runner: { enabled: true }, mcp: { enabled: true } } };

export const MAIL_SECRET = 'security-test-mail-webhook-secret-0123';
export const HOST_SECRET = 'security-test-codehost-secret-0123';

/** The offline adapters with known webhook secrets, so tests can sign deliveries. */
export const OFFLINE_ADAPTERS = {
  adapters: {
    codeHost: 'codehost-local',
    options: { 'mail-outbox': { webhookSecret: MAIL_SECRET }, 'codehost-local': { webhookSecret: HOST_SECRET } },
  },
};

/**
 * A whole service like startTestApp's, optionally logging at `trace` into `capture` through the
 * service's own logger, and optionally running only some `roles` (default: all).
 */
export async function startSecurityApp(
  t: Test,
  overrides: Record<string, unknown> = {},
  capture?: string[],
  roles?: Role[],
): Promise<App> {
  const config = testConfig(overrides);
  const logger = capture
    ? createLogger(
        'trace',
        new Writable({
          write(chunk: Buffer, _enc, done) {
            capture.push(...chunk.toString('utf8').split('\n').filter(Boolean));
            done();
          },
        }),
      )
    : undefined;
  const pglite = config.database.url ? undefined : await pgliteTemplate();
  const app = await createApp(config, {
    logger,
    ...(roles ? { roles } : {}),
    plugins: builtinPlugins,
    adapters: builtinAdapters,
    pgliteTemplate: pglite,
  });
  await app.start({ listen: false, scheduler: false });
  t.teardown(async () => {
    await app.stop();
    await dropTestSchema(config);
  });
  return app;
}

export const uid = (): string => randomBytes(5).toString('hex');

/** A bearer token made by `who` through POST /v1/tokens. */
export async function apiToken(
  app: App,
  who: Caller,
  input: Record<string, unknown>,
): Promise<{ id: string; token: string; auth: { headers: Record<string, string> } }> {
  const res = await call(app, who, 'POST', '/v1/tokens', { name: `t-${uid()}`, ...input });
  if (res.status !== 201) throw new Error(`token: ${res.status} ${res.payload}`);
  return {
    id: res.body.id,
    token: res.body.token,
    auth: { headers: { authorization: `Bearer ${res.body.token}` } },
  };
}

export async function createWorkspace(app: App, who: Caller, name = `ws ${uid()}`): Promise<Workspace> {
  const res = await call(app, who, 'POST', '/v1/workspaces', { name });
  if (res.status !== 201) throw new Error(`workspace: ${res.status} ${res.payload}`);
  return res.body;
}

/** A field error of a refusal (400 invalid_request, 404 naming the field): `details.errors`. */
export interface FieldError {
  path: string;
  message: string;
}

/** The field errors of a refusal's body (undefined when it has none). */
export const fieldErrors = (body: { details?: unknown }): FieldError[] | undefined =>
  (body.details as { errors?: FieldError[] } | undefined)?.errors;

/**
 * Records every statement that writes to a table (statement-level triggers into one log table),
 * so a test can ask cheaply what a request changed. Left out: rate-limit windows and the bus's
 * outbox and inbox (bookkeeping), and updates of sessions and API tokens (every authenticated
 * request may slide an expiry or note a last use).
 */
export async function watchWrites(app: App): Promise<{ take(): Promise<string[]> }> {
  const skip = new Set([
    'rate_limits',
    'outbox',
    'inbox',
    'knex_migrations',
    'knex_migrations_lock',
    'dead_letters',
    'scheduled_tasks',
    'security_test_writes',
  ]);
  const schema = app.config.database.schema ?? 'public';
  await app.db.raw('create table if not exists security_test_writes (tbl text not null, op text not null)');
  await app.db.raw(`create or replace function security_test_write() returns trigger language plpgsql as $$
    begin insert into security_test_writes values (TG_TABLE_NAME, TG_OP); return null; end $$`);
  const tables = (
    await app.db.raw<{ rows: { table_name: string }[] }>(
      `select table_name from information_schema.tables where table_schema = ? and table_type = 'BASE TABLE'`,
      [schema],
    )
  ).rows
    .map((r) => r.table_name)
    .filter((n) => !skip.has(n));
  for (const n of tables) {
    const ops = n === 'sessions' || n === 'api_tokens' ? 'insert or delete' : 'insert or update or delete';
    await app.db.raw(
      `create trigger security_test_write after ${ops} on "${n}" for each statement execute function security_test_write()`,
    );
  }
  return {
    async take() {
      const { rows } = await app.db.raw<{
        rows: { tbl: string; op: string }[];
      }>('delete from security_test_writes returning tbl, op');
      return [...new Set(rows.map((r) => `${r.op.toLowerCase()} ${r.tbl}`))].sort();
    },
  };
}
