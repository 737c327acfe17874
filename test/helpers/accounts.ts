import { randomBytes } from 'node:crypto';
import type { App } from '../../core/kernel/app.js';
import { newToken } from '../../core/security/tokens.js';

/**
 * Signed-in users for tests of any plugin, made through the accounts API.
 *
 * @example
 *   const owner = await signUp(app);
 *   const res = await app.server.inject({ method: 'GET', url: '/v1/members', ...owner.auth });
 *   const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [ws.id] });
 */

export type TestRole = 'owner' | 'admin' | 'reviewer' | 'client_viewer';

export const TEST_PASSWORD = 'correct horse battery staple';

/** The AuthContext's user as the API answers it. */
export interface TestUser {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: TestRole;
  workspace_ids: string[];
  [key: string]: unknown;
}

export interface TestOrganization {
  id: string;
  name: string;
  slug: string;
  [key: string]: unknown;
}

export interface SignedUp {
  /** `pw_session=<token>`, ready for a Cookie header. */
  cookie: string;
  user: TestUser;
  organization: TestOrganization;
  /** Spread into server.inject options: `{ method, url, ...who.auth }`. */
  auth: { headers: { cookie: string } };
  /** The whole AuthContext of the sign-in answer. */
  context: Record<string, unknown>;
  email: string;
  password: string;
  /** For a member made by signUp({ role }) : the owner who invited them. */
  owner?: SignedUp;
}

const unique = () => randomBytes(5).toString('hex');

/** The Set-Cookie lines of a response (one header or several). */
export function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? raw.filter((c): c is string => typeof c === 'string') : [];
}

/** The pw_session value a response set, or null. */
export function sessionFrom(res: { headers: Record<string, unknown> }): string | null {
  for (const c of setCookies(res)) {
    const m = /^pw_session=([^;]*)/.exec(c);
    if (m && m[1]) return m[1];
  }
  return null;
}

function signedIn(
  res: { statusCode: number; payload: string; headers: Record<string, unknown> },
  email: string,
  password: string,
): SignedUp {
  const body = JSON.parse(res.payload) as { user: TestUser; organization: TestOrganization };
  const token = sessionFrom(res);
  if (!token) throw new Error('the answer set no pw_session cookie');
  const cookie = `pw_session=${token}`;
  return {
    cookie,
    user: body.user,
    organization: body.organization,
    auth: { headers: { cookie } },
    context: body,
    email,
    password,
  };
}

/**
 * Signs up a new organization and its owner through POST /v1/auth/signup. With `role` other
 * than owner, it then invites a member with that role (and `workspaceIds`) and answers the
 * member signed in, with `owner` set.
 */
export async function signUp(
  app: App,
  opts: {
    email?: string;
    orgName?: string;
    role?: TestRole;
    name?: string;
    password?: string;
    locale?: 'en' | 'it';
    organizationType?: 'direct' | 'agency';
    workspaceIds?: string[];
  } = {},
): Promise<SignedUp> {
  const role = opts.role ?? 'owner';
  const password = opts.password ?? TEST_PASSWORD;
  const ownerEmail =
    role === 'owner' ? (opts.email ?? `owner-${unique()}@example.test`) : `owner-${unique()}@example.test`;
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/auth/signup',
    payload: {
      name: role === 'owner' ? (opts.name ?? 'Olivia Owner') : 'Olivia Owner',
      email: ownerEmail,
      password,
      organization_name: opts.orgName ?? `Org ${unique()}`,
      organization_type: opts.organizationType ?? 'direct',
      locale: opts.locale ?? 'en',
      accept_terms: true,
    },
  });
  if (res.statusCode !== 201) throw new Error(`signup failed: ${res.statusCode} ${res.payload}`);
  const owner = signedIn(res, ownerEmail, password);
  if (role === 'owner') return owner;
  const member = await addMember(app, owner, {
    role,
    workspaceIds: opts.workspaceIds,
    email: opts.email,
    name: opts.name,
    password,
  });
  return { ...member, owner };
}

/**
 * Adds a member to `owner`'s organization through the invitations API (POST /v1/invitations,
 * then POST /v1/invitations/accept) and answers them signed in. The emailed token is replaced by
 * one the helper knows, so no mail has to be read.
 */
export async function addMember(
  app: App,
  owner: Pick<SignedUp, 'auth'>,
  opts: { role: TestRole; workspaceIds?: string[]; email?: string; name?: string; password?: string },
): Promise<SignedUp> {
  const email = opts.email ?? `${opts.role.replace('_', '-')}-${unique()}@example.test`;
  const password = opts.password ?? TEST_PASSWORD;
  const invite = await app.server.inject({
    method: 'POST',
    url: '/v1/invitations',
    payload: { email, role: opts.role, workspace_ids: opts.workspaceIds ?? [] },
    ...owner.auth,
  });
  if (invite.statusCode !== 201) throw new Error(`invitation failed: ${invite.statusCode} ${invite.payload}`);
  const { token, hash } = newToken('pwi');
  await app
    .db('invitations')
    .where({ id: (JSON.parse(invite.payload) as { id: string }).id })
    .update({ token_hash: hash });
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/invitations/accept',
    payload: { token, name: opts.name ?? `Test ${opts.role}`, password },
  });
  if (res.statusCode !== 200) throw new Error(`accepting the invitation failed: ${res.statusCode} ${res.payload}`);
  return signedIn(res, email, password);
}

/** Inserts a workspace row directly (the workspaces plugin owns the API); for access tests. */
export async function insertWorkspace(
  app: App,
  orgId: string,
  fields: { name?: string; slug?: string; client_name?: string | null } = {},
): Promise<{ id: string; name: string; slug: string }> {
  const { newId } = await import('../../core/data/ids.js');
  const suffix = unique();
  const row = {
    id: newId('ws'),
    org_id: orgId,
    name: fields.name ?? `Workspace ${suffix}`,
    slug: fields.slug ?? `ws-${suffix}`,
    client_name: fields.client_name ?? null,
    created_at: new Date(),
    updated_at: new Date(),
  };
  await app.db('workspaces').insert(row);
  return row;
}

/**
 * Puts an organization on a paid plan with a running subscription, as billing stores it after a
 * completed checkout (organizations: plan, subscription_status active, period end; its
 * billing_accounts row: subscription, period start, first subscription). For tests that need
 * what the plan allows (more workspaces, repositories, fixes), not the checkout itself: the
 * subscription is not known to the payment provider.
 *
 * Calling it again with the same plan changes nothing.
 *
 * @example await onPlan(app, owner.organization.id, 'growth'); // 10 workspaces included
 */
export async function onPlan(
  app: App,
  orgId: string,
  plan: 'indie' | 'startup' | 'growth' | 'managed' | 'agency',
  opts: { days?: number } = {},
): Promise<void> {
  const { newId } = await import('../../core/data/ids.js');
  const now = new Date();
  const end = new Date(now.getTime() + (opts.days ?? 30) * 86_400_000);
  await app.db.transaction(async (trx) => {
    // Already there: nothing changes (a second call does not start a new period with new credits).
    const org = (await trx('organizations').where({ id: orgId }).select('plan', 'subscription_status').first()) as
      { plan: string; subscription_status: string } | undefined;
    if (org?.plan === plan && org.subscription_status === 'active') return;
    await trx('organizations').where({ id: orgId }).update({
      plan,
      subscription_status: 'active',
      trial_ends_at: null,
      current_period_end: end,
      plan_activated_at: now,
      updated_at: now,
    });
    const account = {
      subscription_id: `sub_test_${orgId}`,
      current_period_start: now,
      cancel_at_period_end: false,
      trial_used: true,
      first_subscribed_at: now,
      updated_at: now,
    };
    await trx('billing_accounts')
      .insert({ id: newId('bac'), org_id: orgId, created_at: now, ...account })
      .onConflict('org_id')
      .merge(account);
  });
}
