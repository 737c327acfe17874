import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import { call, type Call, type Json } from '../../../test/helpers/call.js';
import { deliverMime, inboundEmail } from '../../../test/helpers/mail.js';
import { createWorkspace, worldOn, type World } from '../../../test/helpers/workspaces.js';
export { call, type Call, type Json, type World };

export const SECRET = 'inbox-test-webhook-secret-0123456789';
const here = dirname(fileURLToPath(import.meta.url));
export const SISIMAI = join(here, '../../../test/fixtures/email/bounces');

/** A service whose `mime` deliveries are signed with SECRET. */
export async function startInbox(
  t: Test,
  inbox: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<App> {
  return startTestApp(t, {
    adapters: { options: { 'mail-outbox': { webhookSecret: SECRET } } },
    plugins: { inbox: { options: inbox } },
    ...extra,
  });
}

/** An inbox service (startInbox) with an organization, its owner and a workspace Shop. */
export async function world(
  t: Test,
  inbox: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
): Promise<World> {
  return worldOn(await startInbox(t, inbox, extra));
}

export const newWorkspace = (app: App, owner: SignedUp, name: string): Promise<Json> =>
  createWorkspace(app, owner, { name });

export const uid = () => randomBytes(6).toString('hex');

/** A fixture of plugins/inbox/test/fixtures with `{{key}}` filled in (a fresh Message-ID unless given), CRLF line ends. */
export function fixture(name: string, vars: Record<string, string> = {}): Buffer {
  const text = readFileSync(join(here, 'fixtures', `${name}.eml`), 'utf8');
  const filled = text.replace(
    /\{\{(\w+)\}\}/g,
    (_m, k: string) => vars[k] ?? (k === 'id' ? `fx-${uid()}` : k === 'headers' ? '' : `{{${k}}}`),
  );
  return Buffer.from(filled.replace(/\r?\n/g, '\r\n'));
}

/** A real bounce or auto-reply of the Sisimai corpus, as delivered. */
export const sisimai = (file: string): Buffer => readFileSync(join(SISIMAI, file));

/** A small RFC 5322 message (test/helpers/mail.ts). */
export const eml = inboundEmail;

/** POST /v1/webhooks/email/mime with the raw message, signed with SECRET (or `secret`; null: unsigned). */
export function deliver(
  app: App,
  raw: Buffer,
  recipients: string | string[],
  opts: { secret?: string | null } = {},
): Promise<Call> {
  return deliverMime(app, raw, recipients, opts.secret === undefined ? SECRET : opts.secret);
}

/** The one result of a single-recipient delivery. */
export async function deliverOne(app: App, raw: Buffer, recipient: string): Promise<Json> {
  const res = await deliver(app, raw, recipient);
  if (res.status !== 200) throw new Error(`delivery: ${res.status} ${res.payload}`);
  return res.body.results[0] as Json;
}

/** The inbound log of a workspace (newest first). */
export async function inboundLog(app: App, who: SignedUp, workspaceId: string, query = ''): Promise<Json[]> {
  const res = await call(app, who, 'GET', `/v1/channels/${workspaceId}/inbound${query}`);
  if (res.status !== 200) throw new Error(`log: ${res.status} ${res.payload}`);
  return res.body.items as Json[];
}

export async function countRows(app: App, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = (await app.db(table).where(where).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
