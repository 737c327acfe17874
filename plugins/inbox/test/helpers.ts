import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import type { Answer, Schema } from '../../../test/helpers/api-types.js';
import { call, type Call } from '../../../test/helpers/call.js';
import { deliverMime, inboundEmail } from '../../../test/helpers/mail.js';
import { createWorkspace, worldOn, type Workspace, type World } from '../../../test/helpers/workspaces.js';
export { call, type Answer, type Call, type Schema };

/** A workspace of a service with the inbox: it always has its inbound address. */
export type InboxWorkspace = Workspace & { inbound_address: string };

/** A world (test/helpers/workspaces.ts) whose workspace has its inbound address. */
export interface InboxWorld extends World {
  workspace: InboxWorkspace;
}

/** The workspace with its inbound address checked. */
function withInbound(ws: Workspace): InboxWorkspace {
  if (!ws.inbound_address) throw new Error(`workspace ${ws.id} has no inbound address`);
  return { ...ws, inbound_address: ws.inbound_address };
}

/** What POST /v1/webhooks/email/mime answers. */
export type Delivery = Answer<'POST', '/v1/webhooks/email/mime'>;
/** One recipient's result of a delivery. */
export type DeliveryResult = Delivery['results'][number];

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
): Promise<InboxWorld> {
  const w = await worldOn(await startInbox(t, inbox, extra));
  return { ...w, workspace: withInbound(w.workspace) };
}

export const newWorkspace = async (app: App, owner: SignedUp, name: string): Promise<InboxWorkspace> =>
  withInbound(await createWorkspace(app, owner, { name }));

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
export async function deliver(
  app: App,
  raw: Buffer,
  recipients: string | string[],
  opts: { secret?: string | null } = {},
): Promise<Call<Delivery>> {
  return deliverMime(app, raw, recipients, opts.secret === undefined ? SECRET : opts.secret);
}

/** The one result of a single-recipient delivery. */
export async function deliverOne(app: App, raw: Buffer, recipient: string): Promise<DeliveryResult> {
  const res = await deliver(app, raw, recipient);
  if (res.status !== 200) throw new Error(`delivery: ${res.status} ${res.payload}`);
  return res.body.results[0];
}

/** The inbound log of a workspace (newest first). */
export async function inboundLog(
  app: App,
  who: SignedUp,
  workspaceId: string,
  query: '' | `?${string}` = '',
): Promise<Array<Schema<'InboundEmail'>>> {
  const res = await call(app, who, 'GET', `/v1/channels/${workspaceId}/inbound${query}`);
  if (res.status !== 200) throw new Error(`log: ${res.status} ${res.payload}`);
  return res.body.items;
}

export async function countRows(app: App, table: string, where: Record<string, unknown> = {}): Promise<number> {
  const row = (await app.db(table).where(where).count({ n: '*' }).first()) as { n: number | string } | undefined;
  return Number(row?.n ?? 0);
}
