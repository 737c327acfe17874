import t from 'tap';
import type { Principal } from '../../../core/http/auth.js';
import { addMember, insertWorkspace, signUp, TEST_PASSWORD } from '../../../test/helpers/accounts.js';
import { assertNoSecretsLeaked, bearer, expectStatus, harness } from './helpers.js';

const h = await harness(t);
const DAY = 86_400_000;
/** POST /v1/tokens as `who`. */
const createToken = (who: { auth: { headers: Record<string, string> } }, payload: object) =>
  h.call(who, 'POST', '/v1/tokens', payload);

t.test('an owner creates an API token, uses it as Bearer, and revokes it', async (t) => {
  const owner = await signUp(h.app);
  const created = await createToken(owner, { name: 'CI deploys', role: 'admin' });
  expectStatus(t, created, 201, 'created');
  const body = created.body;
  t.match(body.token, /^pwt_[A-Za-z0-9_-]{43}$/, 'the token is shown once');
  t.equal(body.last4, body.token.slice(-4));
  t.match(body, {
    name: 'CI deploys',
    role: 'admin',
    workspace_ids: null,
    last_used_at: null,
    user: { id: owner.user.id, email: owner.email },
  });
  const ttl = Date.parse(body.expires_at) - Date.now();
  t.ok(ttl > 89 * DAY && ttl <= 90 * DAY + 60_000, 'expires in 90 days by default');

  const me = await h.call(bearer(body.token), 'GET', '/v1/auth/me');
  expectStatus(t, me, 200, 'the token works as Bearer');
  t.equal(me.body.user.id, owner.user.id, 'it acts for its creator');
  t.equal(me.body.session.expires_at, body.expires_at, "the context's expiry is the token's");
  t.equal(me.body.session.sso, false);
  const stored = await h.app.db<{ id: string; last_used_at: Date | null }>('api_tokens').where({ id: body.id }).first();
  t.ok(stored?.last_used_at, 'last use is recorded');

  const list = await h.call(owner, 'GET', '/v1/tokens');
  expectStatus(t, list, 200, 'listed');
  const items = list.body.items;
  t.equal(items.length, 1);
  t.notOk('token' in items[0], 'a listed token does not show the secret');
  t.equal(list.body.next_cursor, null);

  const revoked = await h.call(owner, 'DELETE', `/v1/tokens/${body.id}`);
  expectStatus(t, revoked, 204, 'revoked');
  const after = await h.call(bearer(body.token), 'GET', '/v1/auth/me');
  expectStatus(t, after, 401, 'a revoked token is refused');
  t.equal(after.body.code, 'unauthenticated');
  t.same((await h.call(owner, 'GET', '/v1/tokens')).body.items, [], 'and leaves the list');
  expectStatus(t, await h.call(owner, 'DELETE', `/v1/tokens/${body.id}`), 404, 'revoking twice: not found');
  const audit = await h.app
    .db('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereIn('action', ['token.created', 'token.revoked']);
  t.equal(audit.length, 2, 'creation and revocation are audited');
  t.notOk(JSON.stringify(audit).includes(body.token), 'the audit log never holds the token');
});

t.test('expired and malformed tokens are refused; expiry bounds are checked', async (t) => {
  const owner = await signUp(h.app);
  const soon = new Date(Date.now() + DAY).toISOString();
  const created = await createToken(owner, { name: 'short', role: 'reviewer', expires_at: soon });
  expectStatus(t, created, 201, 'created with an expiry');
  t.equal(Date.parse(created.body.expires_at), Date.parse(soon));
  await h.app
    .db('api_tokens')
    .where({ id: created.body.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  expectStatus(t, await h.call(bearer(created.body.token), 'GET', '/v1/auth/me'), 401, 'an expired token is refused');
  expectStatus(t, await h.call(bearer('pwt_notarealtoken'), 'GET', '/v1/auth/me'), 401, 'an unknown token is refused');
  expectStatus(t, await h.call(bearer('something-else'), 'GET', '/v1/auth/me'), 401, 'a foreign bearer is refused');
  const past = await createToken(owner, {
    name: 'x',
    role: 'reviewer',
    expires_at: new Date(Date.now() - DAY).toISOString(),
  });
  expectStatus(t, past, 400, 'an expiry in the past is refused');
  const far = await createToken(owner, {
    name: 'x',
    role: 'reviewer',
    expires_at: new Date(Date.now() + 800 * DAY).toISOString(),
  });
  expectStatus(t, far, 400, 'more than two years is refused');
});

t.test('role ceiling: a token never exceeds its creator', async (t) => {
  const owner = await signUp(h.app);
  const ws1 = await insertWorkspace(h.app, owner.organization.id);
  const ws2 = await insertWorkspace(h.app, owner.organization.id);
  const reviewer = await addMember(h.app, owner, { role: 'reviewer', workspaceIds: [ws1.id] });

  const tooHigh = await createToken(reviewer, { name: 'x', role: 'admin' });
  expectStatus(t, tooHigh, 403, 'a reviewer cannot create an admin token');
  const outside = await createToken(reviewer, { name: 'x', role: 'reviewer', workspace_ids: [ws2.id] });
  expectStatus(t, outside, 403, 'nor a token for a workspace they cannot open');
  const unknown = await createToken(reviewer, { name: 'x', role: 'reviewer', workspace_ids: ['ws_nope'] });
  expectStatus(t, unknown, 400, 'an unknown workspace is invalid');
  const fine = await createToken(reviewer, { name: 'reviewer bot', role: 'client_viewer' });
  expectStatus(t, fine, 201, 'a lower role is fine');

  const tokenService = (h.app.container.cradle as { tokenService: { authenticate(t: string): Promise<Principal> } })
    .tokenService;
  const p = await tokenService.authenticate(fine.body.token);
  t.match(p, {
    kind: 'token',
    role: 'client_viewer',
    userId: reviewer.user.id,
    orgId: owner.organization.id,
    staff: false,
  });
  t.same(p.workspaceIds, [ws1.id], "without workspace_ids the token opens its creator's workspaces");

  const scoped = await createToken(owner, { name: 'one workspace', role: 'owner', workspace_ids: [ws2.id] });
  expectStatus(t, scoped, 201, 'an owner token scoped to one workspace');
  t.same((await tokenService.authenticate(scoped.body.token)).workspaceIds, [ws2.id]);

  // An admin's admin token follows the admin down when they are demoted.
  const admin = await addMember(h.app, owner, { role: 'admin' });
  const adminToken = await createToken(admin, { name: 'admin bot', role: 'admin' });
  expectStatus(
    t,
    await h.call(bearer(adminToken.body.token), 'GET', '/v1/invitations'),
    200,
    'the admin token lists invitations',
  );
  expectStatus(t, await h.patchMember(owner, admin, { role: 'reviewer' }), 200, 'the admin is demoted');
  expectStatus(
    t,
    await h.call(bearer(adminToken.body.token), 'GET', '/v1/invitations'),
    403,
    'their token is now a reviewer too',
  );

  // Who sees and revokes which tokens.
  const reviewerList = await h.call(reviewer, 'GET', '/v1/tokens');
  t.same(
    reviewerList.body.items.map((i: { name: string }) => i.name),
    ['reviewer bot'],
    'a reviewer sees their own tokens',
  );
  const ownerList = await h.call(owner, 'GET', '/v1/tokens');
  t.equal(ownerList.body.items.length, 3, 'an owner sees every token of the organization');
  expectStatus(
    t,
    await h.call(reviewer, 'DELETE', `/v1/tokens/${scoped.body.id}`),
    404,
    "a reviewer cannot revoke someone else's token",
  );
  expectStatus(
    t,
    await h.call(owner, 'DELETE', `/v1/tokens/${fine.body.id}`),
    204,
    "an owner revokes a member's token",
  );
});

t.test("another organization's token ids answer 404", async (t) => {
  const a = await signUp(h.app);
  const b = await signUp(h.app);
  const created = await createToken(a, { name: 'a bot', role: 'owner' });
  const del = await h.call(b, 'DELETE', `/v1/tokens/${created.body.id}`);
  expectStatus(t, del, 404, 'not found, not forbidden');
  t.equal(del.body.code, 'not_found');
  t.same((await h.call(b, 'GET', '/v1/tokens')).body.items, [], "b's list does not show a's tokens");
  expectStatus(t, await h.call(bearer(created.body.token), 'GET', '/v1/auth/me'), 200, 'the token still works');
  const page1 = await h.call(a, 'GET', '/v1/tokens?limit=1');
  t.equal(page1.body.items.length, 1);
});

t.test('lists page with a cursor', async (t) => {
  const owner = await signUp(h.app);
  for (let i = 0; i < 3; i++) await createToken(owner, { name: `bot ${i}`, role: 'reviewer' });
  const names: string[] = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor ? `&cursor=${cursor}` : '';
    const res = await h.call(owner, 'GET', `/v1/tokens?limit=2${query}`);
    const page = res.body;
    names.push(...page.items.map((i) => i.name));
    cursor = page.next_cursor;
  } while (cursor);
  t.same(names, ['bot 2', 'bot 1', 'bot 0'], 'newest first, each once');
});

t.test('no answer ever carries a password, a password hash or a token hash', async (t) => {
  await assertNoSecretsLeaked(t, h, [TEST_PASSWORD]);
});
