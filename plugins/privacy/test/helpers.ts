import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { deliverMime, inboundEmail } from '../../../test/helpers/mail.js';
import { createWorkspace, type Workspace } from '../../../test/helpers/workspaces.js';

export const SECRET = 'privacy-test-webhook-secret-0123456789';
export const json = <T = Record<string, unknown>>(res: { payload: string }): T => JSON.parse(res.payload) as T;
export const uid = () => randomBytes(5).toString('hex');

export async function privacyApp(t: Test): Promise<App> {
  return startTestApp(t, { adapters: { options: { 'mail-outbox': { webhookSecret: SECRET } } } });
}

/** A workspace with its inbound address (a service with the inbox gives every new workspace one). */
export type MailedWorkspace = Workspace & { inbound_address: string };

export async function workspace(app: App, owner: SignedUp): Promise<MailedWorkspace> {
  const ws = await createWorkspace(app, owner, { name: `Shop ${uid()}` });
  if (!ws.inbound_address) throw new Error(`workspace ${ws.id} has no inbound address`);
  return { ...ws, inbound_address: ws.inbound_address };
}

/** POST /v1/privacy/erasures as `who`: the person named by `email` or `user_id` is erased. */
export const requestErasure = (app: App, who: SignedUp, person: { email?: string; user_id?: string }) =>
  app.server.inject({ method: 'POST', url: '/v1/privacy/erasures', payload: person, ...who.auth });

/** An email from an end user to the workspace's inbound address; answers the ticket it opened. */
export async function emailIn(app: App, to: string, from: string, body: string): Promise<string> {
  const raw = inboundEmail({ to, from, subject: `Help ${uid()}`, body });
  const res = await deliverMime(app, raw, to, SECRET);
  if (res.status !== 200) throw new Error(`delivery ${res.status} ${res.payload}`);
  const result = json<{ results: Array<{ ticket_id: string | null; status: string; reason: string | null }> }>(res)
    .results[0];
  if (!result.ticket_id) throw new Error(`no ticket: ${JSON.stringify(result)}`);
  return result.ticket_id;
}

/** Every row of every table (text, JSON and binary columns) that still holds `needle`: "table.column" → rows. */
export async function traces(app: App, needle: string): Promise<Record<string, number>> {
  const { rows } = await app.db.raw<{ rows: Array<{ t: string; c: string; type: string }> }>(
    `select table_name as t, column_name as c, data_type as type from information_schema.columns
      where table_schema = current_schema() and data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'bytea')`,
  );
  const out: Record<string, number> = {};
  for (const { t, c, type } of rows) {
    const q = app.db(t);
    if (type === 'bytea')
      q.whereRaw('position(?::bytea in ??) > 0 or position(?::bytea in ??) > 0', [
        Buffer.from(needle),
        c,
        Buffer.from(needle.toLowerCase()),
        c,
      ]);
    else q.whereRaw('??::text ilike ?', [c, `%${needle}%`]);
    const [row] = await q.count<Array<{ n: string | number }>>('* as n');
    if (Number(row.n) > 0) out[`${t}.${c}`] = Number(row.n);
  }
  return out;
}

/** Lets the outbox relay and the consumers (acknowledgement emails) finish. */
export async function settle(app: App, ms = 600): Promise<void> {
  const end = Date.now() + 10_000;
  await new Promise((r) => setTimeout(r, ms));
  for (;;) {
    const [row] = await app.db('outbox').whereNull('published_at').count<Array<{ n: string | number }>>('* as n');
    if (Number(row.n) === 0 || Date.now() > end) return;
    await new Promise((r) => setTimeout(r, 100));
  }
}
