import t from 'tap';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';
import { addMember, insertWorkspace, signUp, TEST_PASSWORD } from '../../../test/helpers/accounts.js';
import {
  assertNoSecretsLeaked,
  bearer,
  cookieHeader,
  expectStatus,
  harness,
  refusalErrors,
  sessionFrom,
} from './helpers.js';

const h = await harness(t);
const NEW_PASSWORD = 'another long password';

t.test('me: a user changes their name, language, password and address', async (t) => {
  const me = await signUp(h.app, { email: 'me@example.test' });
  const other = await h.login('me@example.test', TEST_PASSWORD);
  const otherSession = cookieHeader(sessionFrom(other)!);
  /** PATCH /v1/me, signed in as me. */
  const changeMe = (payload: Record<string, unknown>) => h.call(me, 'PATCH', '/v1/me', payload);

  const renamed = await changeMe({ name: 'Grace Hopper', locale: 'it' });
  expectStatus(t, renamed, 200, 'profile updated');
  t.match(renamed.body.user, { name: 'Grace Hopper', locale: 'it' });
  t.ok(renamed.body.organization && renamed.body.plan, 'answers the AuthContext');
  expectStatus(t, await changeMe({}), 400, 'an empty change is invalid');

  const noCurrent = await changeMe({ password: NEW_PASSWORD });
  expectStatus(t, noCurrent, 400, 'a new password needs the current one');
  t.match(refusalErrors(noCurrent.body), [{ path: 'payload.current_password' }]);
  const wrong = await changeMe({ password: NEW_PASSWORD, current_password: 'not my password' });
  expectStatus(t, wrong, 400, 'a wrong current password is refused');
  t.equal(wrong.body.code, 'invalid_current_password');
  const changed = await changeMe({ password: NEW_PASSWORD, current_password: TEST_PASSWORD });
  expectStatus(t, changed, 200, 'password changed');
  expectStatus(t, await h.call(me, 'GET', '/v1/auth/me'), 200, 'the current session goes on');
  expectStatus(t, await h.call(otherSession, 'GET', '/v1/auth/me'), 401, 'the other sessions are closed');
  t.equal((await h.mails('me@example.test', 'accounts.password_changed')).length, 1, 'the user is told by email');
  t.equal((await h.mails('me@example.test', 'accounts.password_changed'))[0].locale, 'it', 'in their language');
  expectStatus(t, await h.login('me@example.test', NEW_PASSWORD), 200, 'the new password signs in');

  const taken = await signUp(h.app, { email: 'taken@example.test' });
  const clash = await changeMe({ email: taken.email, current_password: NEW_PASSWORD });
  expectStatus(t, clash, 409, 'an address in use is refused');
  t.equal(clash.body.code, 'email_taken');
  const moved = await changeMe({ email: 'me2@example.test', current_password: NEW_PASSWORD });
  expectStatus(t, moved, 200, 'address changed');
  t.match(moved.body.user, { email: 'me2@example.test', email_verified_at: null });
  t.equal((await h.mails('me@example.test', 'accounts.email_changed')).length, 1, 'the old address is told');
  const token = await h.tokenFromMail('me2@example.test', 'accounts.verify_email');
  const verified = await h.call(me, 'POST', '/v1/auth/verify-email', { token });
  expectStatus(t, verified, 200, 'the new address is verified from its link');
  const oldLink = await h.tokenFromMail('me@example.test', 'accounts.verify_email');
  expectStatus(
    t,
    await h.call(null, 'POST', '/v1/auth/verify-email', { token: oldLink }),
    400,
    'links sent to the old address stop working',
  );

  const created = await h.call(me, 'POST', '/v1/tokens', { name: 'bot', role: 'owner' });
  const viaToken = await h.call(
    null,
    'PATCH',
    '/v1/me',
    { password: 'a token cannot do this', current_password: NEW_PASSWORD },
    { authorization: `Bearer ${created.body.token}` },
  );
  expectStatus(t, viaToken, 403, 'an API token cannot change the password');
  const audit = await h.app
    .db('audit_entries')
    .where({ org_id: me.organization.id })
    .whereIn('action', ['user.password_changed', 'user.email_changed']);
  t.equal(audit.length, 2, 'password and address changes are audited');
});

t.test('orgs: owners and admins change the organization, every change audited', async (t) => {
  const owner = await signUp(h.app, { orgName: 'Acme Support' });
  const admin = await addMember(h.app, owner, { role: 'admin' });
  const reviewer = await addMember(h.app, owner, { role: 'reviewer' });

  const current = await h.call(reviewer, 'GET', '/v1/orgs/current');
  expectStatus(t, current, 200, 'every member reads the organization');
  t.match(current.body, { id: owner.organization.id, name: 'Acme Support', plan: 'none', retention_days: 90 });

  expectStatus(
    t,
    await h.call(reviewer, 'PATCH', '/v1/orgs/current', { name: 'Nope' }),
    403,
    'a reviewer cannot change it',
  );
  const updated = await h.call(admin, 'PATCH', '/v1/orgs/current', {
    name: 'Acme Help',
    billing_email: 'Billing@Acme.test',
    retention_days: 30,
    locale: 'it',
  });
  expectStatus(t, updated, 200, 'an admin changes it');
  t.match(updated.body, { name: 'Acme Help', billing_email: 'billing@acme.test', retention_days: 30, locale: 'it' });
  const [entry] = await h.app
    .db<AuditEntry>('audit_entries')
    .where({ org_id: owner.organization.id, action: 'organization.updated' });
  t.same(
    entry.changes,
    {
      name: { before: 'Acme Support', after: 'Acme Help' },
      billing_email: { before: owner.email, after: 'billing@acme.test' },
      retention_days: { before: 90, after: 30 },
      locale: { before: 'en', after: 'it' },
    },
    'the audit entry names each changed field',
  );
  t.equal(entry.actor_id, admin.user.id);

  const otherOrg = await signUp(h.app);
  const clash = await h.call(owner, 'PATCH', '/v1/orgs/current', { slug: otherOrg.organization.slug });
  expectStatus(t, clash, 409, 'a slug in use is refused');
  t.equal(clash.body.code, 'slug_taken');
  expectStatus(
    t,
    await h.call(owner, 'PATCH', '/v1/orgs/current', { retention_days: 1 }),
    400,
    'retention below 7 days is invalid',
  );
  expectStatus(
    t,
    await h.call(owner, 'PATCH', '/v1/orgs/current', { plan: 'enterprise' }),
    400,
    'the plan is not changed here',
  );
});

t.test('members: roles, workspace access, owners protected', async (t) => {
  const owner = await signUp(h.app);
  const ws1 = await insertWorkspace(h.app, owner.organization.id, { name: 'Alpha', client_name: 'Client A' });
  const ws2 = await insertWorkspace(h.app, owner.organization.id, { name: 'Beta' });
  const admin = await addMember(h.app, owner, { role: 'admin' });
  const reviewer = await addMember(h.app, owner, { role: 'reviewer', workspaceIds: [ws1.id] });
  const viewer = await addMember(h.app, owner, { role: 'client_viewer', workspaceIds: [ws2.id] });

  const list = await h.call(reviewer, 'GET', '/v1/members');
  expectStatus(t, list, 200, 'a reviewer lists members');
  const items = list.body.items;
  t.same(
    items.map((m) => m.role),
    ['owner', 'admin', 'reviewer', 'client_viewer'],
    'oldest first',
  );
  t.same(items[0].workspace_ids, [ws1.id, ws2.id], 'owners open every workspace');
  t.same(items[2].workspace_ids, [ws1.id], 'reviewers open the ones granted');
  expectStatus(t, await h.call(viewer, 'GET', '/v1/members'), 403, 'a client viewer cannot list members');
  const paged = await h.call(owner, 'GET', '/v1/members?limit=3');
  t.equal(paged.body.items.length, 3);
  const rest = await h.call(owner, 'GET', `/v1/members?limit=3&cursor=${paged.body.next_cursor}`);
  t.same(
    rest.body.items.map((m: { id: string }) => m.id),
    [viewer.user.id],
    'the cursor gives the rest',
  );

  const reviewerMe = await h.call(reviewer, 'GET', '/v1/auth/me');
  t.same(
    reviewerMe.body.workspaces,
    [
      {
        id: ws1.id,
        name: 'Alpha',
        slug: ws1.slug,
        client_name: 'Client A',
        execution_mode: 'managed',
        autonomy: 'approve',
        archived_at: null,
      },
    ],
    'a reviewer sees only granted workspaces',
  );

  const grant = await h.patchMember(admin, reviewer, { workspace_ids: [ws1.id, ws2.id] });
  expectStatus(t, grant, 200, 'an admin grants a workspace');
  t.same(grant.body.workspace_ids.sort(), [ws1.id, ws2.id].sort());
  expectStatus(
    t,
    await h.patchMember(admin, reviewer, { workspace_ids: ['ws_unknown'] }),
    400,
    'an unknown workspace is invalid',
  );
  const promote = await h.patchMember(admin, reviewer, { role: 'admin' });
  expectStatus(t, promote, 200, 'an admin makes a reviewer admin');
  t.same(promote.body.workspace_ids, [ws1.id, ws2.id], 'admins open every workspace');
  const changes = await h.app
    .db<AuditEntry>('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereIn('action', ['member.role_changed', 'member.workspaces_changed'])
    .orderBy('id');
  t.same(
    changes.map((c) => c.action),
    ['member.workspaces_changed', 'member.role_changed'],
    'role and access changes are audited',
  );

  expectStatus(t, await h.patchMember(admin, viewer, { role: 'owner' }), 403, 'an admin cannot make owners');
  const demoteOwner = await h.patchMember(admin, owner, { role: 'admin' });
  expectStatus(t, demoteOwner, 403, 'an admin cannot demote an owner');
  expectStatus(t, await h.removeMember(admin, owner), 403, 'nor remove one');
  const lastOwner = await h.patchMember(owner, owner, { role: 'admin' });
  expectStatus(t, lastOwner, 409, 'the last owner cannot be demoted');
  t.equal(lastOwner.body.code, 'last_owner');
  expectStatus(t, await h.removeMember(owner, owner), 409, 'nor removed');
  expectStatus(t, await h.patchMember(owner, admin, { role: 'owner' }), 200, 'an owner makes another owner');
  expectStatus(t, await h.patchMember(owner, owner, { role: 'admin' }), 200, 'then steps down');
  expectStatus(
    t,
    await h.patchMember(reviewer, viewer, { role: 'reviewer' }),
    200,
    'the promoted admin can manage members',
  );
});

t.test('members: removal ends sessions and tokens and frees the address', async (t) => {
  const owner = await signUp(h.app);
  const gone = await addMember(h.app, owner, { role: 'reviewer', email: 'leaving@example.test' });
  const token = await h.call(gone, 'POST', '/v1/tokens', { name: 'bot', role: 'reviewer' });
  const bot = bearer(token.body.token);
  expectStatus(t, await h.call(bot, 'GET', '/v1/auth/me'), 200, 'the token works before');
  expectStatus(t, await h.removeMember(gone, gone), 403, 'a reviewer cannot remove members');

  expectStatus(t, await h.removeMember(owner, gone), 204, 'removed');
  expectStatus(t, await h.call(gone, 'GET', '/v1/auth/me'), 401, 'their session is closed');
  expectStatus(t, await h.call(bot, 'GET', '/v1/auth/me'), 401, 'their token is revoked');
  expectStatus(t, await h.login('leaving@example.test', TEST_PASSWORD), 401, 'they cannot sign in');
  const list = await h.call(owner, 'GET', '/v1/members');
  t.same(
    list.body.items.map((m: { id: string }) => m.id),
    [owner.user.id],
    'they leave the list',
  );
  expectStatus(t, await h.removeMember(owner, gone), 404, 'removing twice: not found');
  t.equal(
    (await h.app.db('audit_entries').where({ org_id: owner.organization.id, action: 'member.removed' })).length,
    1,
    'audited',
  );
  const again = await signUp(h.app, { email: 'leaving@example.test' });
  t.equal(again.email, 'leaving@example.test', 'the address can make a new account');
});

t.test("another organization's member ids answer 404", async (t) => {
  const a = await signUp(h.app);
  const b = await signUp(h.app);
  const bMember = await addMember(h.app, b, { role: 'reviewer' });
  const patch = await h.patchMember(a, bMember, { role: 'admin' });
  expectStatus(t, patch, 404, 'changing: not found');
  t.equal(patch.body.code, 'not_found');
  expectStatus(t, await h.removeMember(a, bMember), 404, 'removing: not found');
  t.notOk(
    JSON.stringify((await h.call(a, 'GET', '/v1/members')).body).includes(bMember.user.id),
    "a's list does not show b's members",
  );
  const wsB = await insertWorkspace(h.app, b.organization.id);
  const aReviewer = await addMember(h.app, a, { role: 'reviewer' });
  expectStatus(
    t,
    await h.patchMember(a, aReviewer, { workspace_ids: [wsB.id] }),
    400,
    "another organization's workspace cannot be granted",
  );
});

t.test('no answer ever carries a password, a password hash or a token hash', async (t) => {
  await assertNoSecretsLeaked(t, h, [TEST_PASSWORD, NEW_PASSWORD]);
});
