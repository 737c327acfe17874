import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { Knex } from 'knex';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { LocalCodeHost } from '../../../adapters/codehost-local/index.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { installAndLink } from '../../../test/helpers/codehost.js';
import { CART_FIX } from './fixtures/cart.js';
import { call, type Call, type Json } from '../../../test/helpers/call.js';
import { deliverMime, inboundEmail } from '../../../test/helpers/mail.js';
export { call, type Call, type Json };

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
export const diagnosisJob = (db: Knex, ticketId: string): Promise<Json> =>
  waitFor(
    async () => db('fix_jobs').where({ ticket_id: ticketId }).first() as Promise<Json | undefined>,
    'the diagnosis job',
  );

/** The log of a job (its row) as the API answers it: GET …/jobs/{id}/events, one page of up to `limit`. */
export async function jobEvents(app: App, who: SignedUp, ticketId: string, job: Json, limit = 200): Promise<Json[]> {
  const res = await call(app, who, 'GET', `/v1/tickets/${ticketId}/jobs/${job.id as string}/events?limit=${limit}`);
  return res.body.items as Json[];
}

export const localHost = (app: App): LocalCodeHost => app.container.resolve('codeHost') as LocalCodeHost;
export const uid = () => randomBytes(5).toString('hex');

/** A call with these headers; the answer's status and parsed body (`{ raw }` when it is not JSON). */
/** A request with the given headers only (a signature, a token…). */
export function inject(app: App, method: string, url: string, headers: Record<string, string>, payload?: unknown) {
  return call(app, null, method, url, payload, headers);
}

export async function createWorkspace(app: App, owner: SignedUp, name: string, settings: Json = {}): Promise<Json> {
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
): Promise<Json> {
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
  settings: Json,
  files: Record<string, string>,
  { orgName = 'Acme', credits = 20 }: { orgName?: string; credits?: number } = {},
): Promise<{ owner: SignedUp; ws: Json; repo: Json }> {
  const owner = credits > 0 ? await signUpWithCredits(app, orgName, credits) : await signUp(app, { orgName });
  const ws = await createWorkspace(app, owner, 'Shop', settings);
  const repo = await connectRepository(app, owner, ws.id as string, 'shop', files);
  return { owner, ws, repo };
}

/**
 * The shop of the loop scenarios: shopWithRepository with APPROVED_FIXES and `settings`, the local
 * code host and the repository's ref on it, and `verified(ticketId)`, which waits for the ticket's
 * tested fix and its pull request.
 */
export async function shopWithApprovedFixes(app: App, settings: Json, files: Record<string, string>) {
  const shop = await shopWithRepository(app, { ...APPROVED_FIXES, ...settings }, files);
  return {
    ...shop,
    host: localHost(app),
    ref: { installationId: null, fullName: shop.repo.full_name as string },
    verified: (ticketId: string, what = 'the verified fix with its pull request', timeoutMs?: number) =>
      fixWithPullRequest(app.db, ticketId, what, timeoutMs),
  };
}

/** Waits until the ticket's fix attempt has a pull request (the fix passed its tests), and answers the attempt row. */
export function fixWithPullRequest(db: Knex, ticketId: string, what: string, timeoutMs = 40_000): Promise<Json> {
  return waitFor(
    async () => {
      const a = (await db('fix_attempts').where({ ticket_id: ticketId }).first()) as Json | undefined;
      return a?.pr_number ? a : null;
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
): Promise<Json> {
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
export async function releaseNotices(db: Knex): Promise<Json[]> {
  return (await db('mail_messages')
    .whereIn('template', ['fixes.release_notice', 'fixes.release_notice_subscriber'])
    .orderBy('template')) as Json[];
}

/** [template, to] of the notices in the loop scenarios: Ada reported the bug, Grace follows the ticket. */
export const NOTICES_TO_REPORTER_AND_FOLLOWER = [
  ['fixes.release_notice', 'ada.lovelace@example.com'],
  ['fixes.release_notice_subscriber', 'grace.hopper@example.com'],
];

/** An email arriving at the workspace's inbound address (POST /v1/webhooks/email/mime, signed). */
export async function receiveEmail(
  app: App,
  to: string,
  m: { subject: string; body: string; from?: string },
): Promise<string> {
  const res = await deliverMime(app, inboundEmail({ to, ...m }), to, MAIL_SECRET);
  const ticketId = res.body.results?.[0]?.ticket_id as string | undefined;
  if (res.status !== 200 || !ticketId) throw new Error(`email: ${res.status} ${res.payload}`);
  return ticketId;
}

export { waitFor };
