import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { Knex } from 'knex';
import type { Model } from 'objection';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { LocalCodeHost } from '../../../adapters/codehost-local/index.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { installAndLink } from '../../../test/helpers/codehost.js';
import { CART_FIX } from './fixtures/cart.js';
import { call, type Call } from '../../../test/helpers/call.js';
import type { Answer, Method, Schema } from '../../../test/helpers/api-types.js';
import { deliverMime, inboundEmail } from '../../../test/helpers/mail.js';
import type { FixAttempt, FixDiagnosis, FixJob, FixJobEvent, FixRelease } from '../models/index.js';
export { call, type Call };

/** A row of a model's table as knex reads it: the model's columns, without objection's methods. */
export type Row<M extends Model> = Omit<M, keyof Model>;
export type JobRow = Row<FixJob>;
export type JobEventRow = Row<FixJobEvent>;
export type DiagnosisRow = Row<FixDiagnosis>;
export type AttemptRow = Row<FixAttempt>;
export type ReleaseRow = Row<FixRelease>;
/** A fix attempt with its pull request (fixWithPullRequest): pushed, so it has a head commit. */
export type AttemptWithPullRequest = AttemptRow & { head_sha: string; pr_number: number };

/** A ticket as stored (tickets), the columns these tests read. */
export interface TicketRow {
  id: string;
  state: string;
  escalation_reason: string | null;
  resolved_version: string | null;
  notices_unsubscribed_at: Date | null;
}

/** A draft to the customer as stored (ticket_drafts), the columns these tests read. */
export interface DraftRow {
  id: string;
  ticket_id: string;
  kind: string;
  status: string;
  language: string;
  body_md: string;
  sent_message_id: string | null;
}

/** A follower of a ticket as stored (ticket_subscribers), the columns these tests read. */
export interface SubscriberRow {
  email: string;
  source: string;
  thread_ticket_id: string | null;
  notified_at: Date | null;
  unsubscribed_at: Date | null;
}

/** A mail the service sent (mail_messages), the columns these tests read. */
export interface MailRow {
  template: string;
  to_address: string;
  from_address: string;
  reply_to: string | null;
  subject: string;
  text: string;
  headers: Record<string, string>;
  message_id: string;
  ticket_ref: string | null;
}

/** The answer of a `count('* as n')` (a bigint: a string). */
export type CountRow = { n: string | number };

export const MAIL_SECRET = 'fixes-test-mail-webhook-secret-0123';
export const HOST_SECRET = 'fixes-test-codehost-secret-0123';

/** A whole service on the offline defaults, with short job timings. */
export function startFixesApp(
  t: Test,
  fixes: Record<string, unknown> = {},
  extra: Record<string, unknown> = {},
  agents?: { list: string[]; options: Record<string, unknown> },
): Promise<App> {
  return startTestApp(t, {
    adapters: {
      codeHost: 'codehost-local',
      ...(agents ? { agent: agents.list } : {}),
      options: {
        'mail-outbox': { webhookSecret: MAIL_SECRET },
        'codehost-local': { webhookSecret: HOST_SECRET },
        ...(agents?.options ?? {}),
      },
    },
    plugins: { fixes: { enabled: true, options: { pollMs: 100, leaseMs: 2000, backoffMs: [50, 100], ...fixes } } },
    ...extra,
  });
}

/**
 * The adapters of the fix loop in separate processes (the chaos tests): the local code host, the builtin and
 * managed executors (`managed`: agent-managed's options), and the webhook secrets of the mail and code host.
 */
export function fixLoopAdapters(managed: Record<string, unknown>) {
  return {
    codeHost: 'codehost-local',
    agent: ['agent-builtin', 'agent-managed'],
    options: {
      'mail-outbox': { webhookSecret: MAIL_SECRET },
      'codehost-local': { webhookSecret: HOST_SECRET },
      'agent-managed': managed,
    },
  };
}

/** startFixesApp with the managed executor, running `command` as its agent, beside the builtin one. */
export function startManagedFixesApp(
  t: Test,
  command = CART_FIX,
  extra: Record<string, unknown> = {},
  fixes: Record<string, unknown> = {},
): Promise<App> {
  return startFixesApp(t, fixes, extra, {
    list: ['agent-builtin', 'agent-managed'],
    options: { 'agent-managed': { command } },
  });
}

/** A first fix attempt that ran the tests and passed them and the verification: as stored, and as the API answers it. */
export const VERIFIED_FIRST_ATTEMPT = {
  number: 1,
  status: 'verified',
  tests_ran: true,
  tests_passed: true,
  verify_passed: true,
  reason: null,
};

/** Waits for the ticket's first fix job (the diagnosis job its email queued), and answers its row. */
export const diagnosisJob = (db: Knex, ticketId: string): Promise<JobRow> =>
  waitFor(
    async () => (await db('fix_jobs').where({ ticket_id: ticketId }).first()) as JobRow | undefined,
    'the diagnosis job',
  );

/** The log of a job (its row) as the API answers it: GET …/jobs/{id}/events, one page of up to `limit`. */
export async function jobEvents(
  app: App,
  who: SignedUp,
  ticketId: string,
  job: { id: string },
  limit = 200,
): Promise<Array<Schema<'JobEvent'>>> {
  const res = await call(app, who, 'GET', `/v1/tickets/${ticketId}/jobs/${job.id}/events?limit=${limit}`);
  return res.body.items;
}

export const localHost = (app: App): LocalCodeHost => app.container.resolve('codeHost') as LocalCodeHost;
export const uid = () => randomBytes(5).toString('hex');

/** A call with these headers; the answer's status and parsed body (`{ raw }` when it is not JSON). */
/** A request with the given headers only (a signature, a token…). */
export function inject<M extends Method, U extends string>(
  app: App,
  method: M,
  url: U,
  headers: Record<string, string>,
  payload?: unknown,
): Promise<Call<Answer<M, U>>> {
  return call(app, null, method, url, payload, headers);
}

export async function createWorkspace(
  app: App,
  owner: SignedUp,
  name: string,
  settings: Record<string, unknown> = {},
): Promise<Schema<'Workspace'>> {
  const res = await call(app, owner, 'POST', '/v1/workspaces', { name });
  if (res.status !== 201) throw new Error(`workspace: ${res.status} ${JSON.stringify(res.body)}`);
  if (Object.keys(settings).length === 0) return res.body;
  const upd = await call(app, owner, 'PATCH', `/v1/workspaces/${res.body.id}`, settings);
  if (upd.status !== 200) throw new Error(`workspace settings: ${upd.status} ${JSON.stringify(upd.body)}`);
  return upd.body;
}

/** Installs the local code host, creates a repository with `files` and connects it to the workspace. */
export async function connectRepository(
  app: App,
  owner: SignedUp,
  workspaceId: string,
  name: string,
  files: Record<string, string>,
): Promise<Schema<'Repository'>> {
  await localHost(app).createRepository(`${owner.organization.slug}/${name}`, { isPublic: true, files });
  const inst = await installAndLink(app, owner);
  const repo = await call(app, owner, 'POST', '/v1/repositories', {
    installation_id: inst.id,
    workspace_id: workspaceId,
    full_name: `${owner.organization.slug}/${name}`,
  });
  if (repo.status !== 201) throw new Error(`repository: ${repo.status} ${JSON.stringify(repo.body)}`);
  await waitFor(async () => {
    const r = await call(app, owner, 'GET', `/v1/repositories/${repo.body.id}`);
    return r.body.index?.status === 'ready' ? r.body : null;
  }, 'the code index');
  return repo.body;
}

/**
 * Fix credits for an organization (a top-up): fixes ask billing before they run (docs/fixes.md,
 * "Plans gate fixes"), and a new organization is on plan `none` with none.
 */
export async function grantFixCredits(app: App, orgId: string, fixes = 20): Promise<void> {
  const ledger = app.container.resolve('creditLedger');
  await app.db.transaction((trx) =>
    ledger.grant(trx, { orgId, source: 'topup', fixes, reference: `test-topup-${uid()}`, expiresAt: null }),
  );
}

/** A new organization's owner, with fix credits. */
export async function signUpWithCredits(app: App, orgName: string, fixes = 20): Promise<SignedUp> {
  const owner = await signUp(app, { orgName });
  await grantFixCredits(app, owner.organization.id, fixes);
  return owner;
}

/** Workspace settings under which a diagnosed bug becomes a tested fix that waits for approval. */
export const APPROVED_FIXES = { autonomy: 'approve', test_command: 'node test.js', confidence_threshold: 0.5 } as const;

/**
 * A new organization (with `credits` fix credits, 20 unless told) whose workspace "Shop" has
 * `settings` and is connected to the repository "shop" holding `files` on the local code host.
 */
export async function shopWithRepository(
  app: App,
  settings: Record<string, unknown>,
  files: Record<string, string>,
  { orgName = 'Acme', credits = 20 }: { orgName?: string; credits?: number } = {},
): Promise<{ owner: SignedUp; ws: Schema<'Workspace'>; repo: Schema<'Repository'> }> {
  const owner = credits > 0 ? await signUpWithCredits(app, orgName, credits) : await signUp(app, { orgName });
  const ws = await createWorkspace(app, owner, 'Shop', settings);
  const repo = await connectRepository(app, owner, ws.id, 'shop', files);
  return { owner, ws, repo };
}

/**
 * The shop of the loop scenarios: shopWithRepository with APPROVED_FIXES and `settings`, the local
 * code host and the repository's ref on it, and `verified(ticketId)`, which waits for the ticket's
 * tested fix and its pull request.
 */
export async function shopWithApprovedFixes(
  app: App,
  settings: Record<string, unknown>,
  files: Record<string, string>,
) {
  const shop = await shopWithRepository(app, { ...APPROVED_FIXES, ...settings }, files);
  return {
    ...shop,
    host: localHost(app),
    ref: { installationId: null, fullName: shop.repo.full_name },
    verified: (ticketId: string, what = 'the verified fix with its pull request', timeoutMs?: number) =>
      fixWithPullRequest(app.db, ticketId, what, timeoutMs),
  };
}

/** Whether the attempt has its pull request (opened from its pushed head). */
const hasPullRequest = (a: AttemptRow): a is AttemptWithPullRequest => !!a.pr_number && !!a.head_sha;

/** Waits until the ticket's fix attempt has a pull request (the fix passed its tests), and answers the attempt row. */
export function fixWithPullRequest(
  db: Knex,
  ticketId: string,
  what: string,
  timeoutMs = 40_000,
): Promise<AttemptWithPullRequest> {
  return waitFor(
    async () => {
      const a = (await db('fix_attempts').where({ ticket_id: ticketId }).first()) as AttemptRow | undefined;
      return a && hasPullRequest(a) ? a : null;
    },
    what,
    timeoutMs,
  );
}

/** Waits until GET /v1/tickets/:id, as `who`, answers the ticket in `state`, and answers it. */
export function ticketInState(
  app: App,
  who: SignedUp,
  ticketId: string,
  state: string,
  what = `ticket ${state}`,
  timeoutMs = 30_000,
): Promise<Schema<'Ticket'>> {
  return waitFor(
    async () => {
      const tk = (await call(app, who, 'GET', `/v1/tickets/${ticketId}`)).body;
      return tk.state === state ? tk : null;
    },
    what,
    timeoutMs,
  );
}

/** The release notices sent, the reporter's (`fixes.release_notice`) before a follower's (`…_subscriber`). */
export async function releaseNotices(db: Knex): Promise<MailRow[]> {
  return (await db('mail_messages')
    .whereIn('template', ['fixes.release_notice', 'fixes.release_notice_subscriber'])
    .orderBy('template')) as MailRow[];
}

/** [template, to] of the notices in the loop scenarios: Ada reported the bug, Grace follows the ticket. */
export const NOTICES_TO_REPORTER_AND_FOLLOWER = [
  ['fixes.release_notice', 'ada.lovelace@example.com'],
  ['fixes.release_notice_subscriber', 'grace.hopper@example.com'],
];

/**
 * An email arriving at `to` (POST /v1/webhooks/email/mime, signed): a workspace's inbound address or a ticket's
 * reply address (a workspace without one fails here). Answers the ticket it opened or joined.
 */
export async function receiveEmail(
  app: App,
  to: string | null,
  m: { subject: string; body: string; from?: string },
): Promise<string> {
  if (!to) throw new Error('email: no address to send to (a workspace without an inbound address?)');
  const res = await deliverMime(app, inboundEmail({ to, ...m }), to, MAIL_SECRET);
  const ticketId = res.body.results?.[0]?.ticket_id;
  if (res.status !== 200 || !ticketId) throw new Error(`email: ${res.status} ${res.payload}`);
  return ticketId;
}

export { waitFor };
