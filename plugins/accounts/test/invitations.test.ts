import t from 'tap';
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
/** POST /v1/invitations as `who`. */
const invite = (who: { auth: { headers: Record<string, string> } }, payload: Record<string, unknown>) =>
  h.call(who, 'POST', '/v1/invitations', payload);
const NEW_PASSWORD = 'invited person password';
/** POST /v1/invitations/accept: the token, with a name and password when it makes a new account. */
const accept = (payload: { token: string; name?: string; password?: string }) =>
  h.call(null, 'POST', '/v1/invitations/accept', payload);

t.test('an owner invites a reviewer who joins with a new account', async (t) => {
  const owner = await signUp(h.app, { orgName: 'Globex', name: 'Hank Scorpio' });
  const ws = await insertWorkspace(h.app, owner.organization.id);
  const created = await invite(owner, { email: 'New.Person@Example.test', role: 'reviewer', workspace_ids: [ws.id] });
  expectStatus(t, created, 201, 'invited');
  const inv = created.body;
  t.match(inv, {
    email: 'new.person@example.test',
    role: 'reviewer',
    workspace_ids: [ws.id],
    status: 'pending',
    accepted_at: null,
    revoked_at: null,
    invited_by: { id: owner.user.id, name: 'Hank Scorpio', email: owner.email },
  });
  const ttl = Date.parse(inv.expires_at) - Date.now();
  t.ok(ttl > 6.99 * 86_400_000 && ttl <= 7 * 86_400_000, 'the link is valid 7 days');

  const [mail] = await h.mails('new.person@example.test', 'accounts.invitation');
  t.ok(mail, 'the invitation is emailed');
  t.match(mail.subject, /Hank Scorpio invited you to Globex/);
  t.match(mail.text, /http:\/\/localhost:3000\/invitations\/accept\?token=pwi_/);
  const token = await h.tokenFromMail('new.person@example.test', 'accounts.invitation');

  const list = await h.call(owner, 'GET', '/v1/invitations?status=pending');
  t.same(
    list.body.items.map((i: { id: string }) => i.id),
    [inv.id],
    'listed as pending',
  );

  const preview = await h.call(null, 'POST', '/v1/invitations/preview', { token });
  expectStatus(t, preview, 200, 'previewed with the token alone');
  t.same(preview.body, {
    email: 'new.person@example.test',
    role: 'reviewer',
    organization: { id: owner.organization.id, name: 'Globex' },
    invited_by: { name: 'Hank Scorpio', email: owner.email },
    expires_at: inv.expires_at,
    existing_account: false,
  });

  const noPassword = await accept({ token, name: 'New Person' });
  expectStatus(t, noPassword, 400, 'a new account needs a password');
  t.match(refusalErrors(noPassword.body), [{ path: 'payload.password' }]);
  const accepted = await accept({ token, name: 'New Person', password: NEW_PASSWORD });
  expectStatus(t, accepted, 200, 'accepted');
  t.match(accepted.body.user, {
    email: 'new.person@example.test',
    name: 'New Person',
    role: 'reviewer',
    org_id: owner.organization.id,
    workspace_ids: [ws.id],
  });
  t.ok(accepted.body.user.email_verified_at, 'the invitation proves the address');
  t.same(
    accepted.body.workspaces.map((w: { id: string }) => w.id),
    [ws.id],
  );
  const session = sessionFrom(accepted);
  t.ok(session, 'a session is opened');
  expectStatus(t, await h.call(cookieHeader(session!), 'GET', '/v1/auth/me'), 200, 'and works');

  const reuse = await accept({ token, name: 'Again', password: NEW_PASSWORD });
  expectStatus(t, reuse, 400, 'an invitation works once');
  t.match(reuse.body, { code: 'invalid_token', details: { reason: 'used' } });
  expectStatus(
    t,
    await h.call(null, 'POST', '/v1/invitations/preview', { token }),
    400,
    'nor can it be previewed again',
  );
  const after = await h.call(owner, 'GET', '/v1/invitations');
  t.equal(after.body.items[0].status, 'accepted');
  const audit = await h.app
    .db('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereIn('action', ['invitation.created', 'invitation.accepted']);
  t.equal(audit.length, 2, 'invitation and acceptance are audited');
});

t.test('an existing account accepts with the token alone and moves over', async (t) => {
  const host = await signUp(h.app, { orgName: 'Initech' });
  const elsewhere = await signUp(h.app, { orgName: 'Old Place' });
  const mover = await addMember(h.app, elsewhere, { role: 'admin', email: 'mover@example.test' });
  const oldToken = await h.call(mover, 'POST', '/v1/tokens', { name: 'old bot', role: 'admin' });

  await invite(host, { email: 'mover@example.test', role: 'admin' });
  const token = await h.tokenFromMail('mover@example.test', 'accounts.invitation');
  const preview = await h.call(null, 'POST', '/v1/invitations/preview', { token });
  t.equal(preview.body.existing_account, true, 'the preview says the account exists');
  const accepted = await accept({ token });
  expectStatus(t, accepted, 200, 'accepted without name or password');
  t.match(accepted.body.user, { id: mover.user.id, org_id: host.organization.id, role: 'admin' });
  t.equal(accepted.body.organization.name, 'Initech');
  expectStatus(t, await h.call(mover, 'GET', '/v1/auth/me'), 401, 'sessions of the old organization are closed');
  expectStatus(t, await h.call(bearer(oldToken.body.token), 'GET', '/v1/auth/me'), 401, 'and its tokens revoked');
  const oldMembers = await h.call(elsewhere, 'GET', '/v1/members');
  t.notOk(JSON.stringify(oldMembers.body).includes(mover.user.id), 'they left the old organization');
  expectStatus(t, await h.login('mover@example.test', TEST_PASSWORD), 200, 'their password still signs in');

  // The last owner of an organization cannot leave it this way.
  const loner = await signUp(h.app, { email: 'loner@example.test' });
  await invite(host, { email: loner.email, role: 'reviewer' });
  const lonerToken = await h.tokenFromMail(loner.email, 'accounts.invitation');
  const refused = await accept({ token: lonerToken });
  expectStatus(t, refused, 409, 'the last owner is refused');
  t.equal(refused.body.code, 'last_owner');
  expectStatus(t, await h.call(loner, 'GET', '/v1/auth/me'), 200, 'and keeps their organization and session');
});

t.test('revoke, replace, expire; who may invite', async (t) => {
  const owner = await signUp(h.app);
  const admin = await addMember(h.app, owner, { role: 'admin' });
  const reviewer = await addMember(h.app, owner, { role: 'reviewer' });

  const byReviewer = await invite(reviewer, { email: 'x@example.test', role: 'client_viewer' });
  expectStatus(t, byReviewer, 403, 'a reviewer cannot invite');
  expectStatus(t, await h.call(reviewer, 'GET', '/v1/invitations'), 403, 'nor list invitations');
  expectStatus(
    t,
    await invite(admin, { email: 'x@example.test', role: 'owner' }),
    403,
    'an admin cannot invite an owner',
  );
  const member = await invite(admin, { email: reviewer.email, role: 'admin' });
  expectStatus(t, member, 409, 'a member cannot be invited again');
  t.equal(member.body.code, 'already_member');
  expectStatus(t, await invite(admin, { email: 'not an address', role: 'admin' }), 400, 'an invalid address');

  const first = await invite(admin, { email: 'twice@example.test', role: 'reviewer' });
  const firstToken = await h.tokenFromMail('twice@example.test', 'accounts.invitation');
  const second = await invite(admin, { email: 'twice@example.test', role: 'admin' });
  expectStatus(t, second, 201, 'inviting again');
  const replaced = await h.call(null, 'POST', '/v1/invitations/preview', { token: firstToken });
  t.match(replaced.body, { code: 'invalid_token', details: { reason: 'revoked' } }, 'replaces the pending invitation');
  const revokedList = await h.call(owner, 'GET', '/v1/invitations?status=revoked');
  t.same(
    revokedList.body.items.map((i: { id: string }) => i.id),
    [first.body.id],
  );

  const secondToken = await h.tokenFromMail('twice@example.test', 'accounts.invitation');
  expectStatus(t, await h.call(admin, 'DELETE', `/v1/invitations/${second.body.id}`), 204, 'revoked');
  const gone = await accept({ token: secondToken, name: 'X', password: NEW_PASSWORD });
  t.match(
    [gone.status, gone.body],
    [400, { code: 'invalid_token', details: { reason: 'revoked' } }],
    'a revoked invitation cannot be accepted',
  );
  const twice = await h.call(admin, 'DELETE', `/v1/invitations/${second.body.id}`);
  expectStatus(t, twice, 409, 'only pending invitations are revoked');
  t.equal(twice.body.code, 'invitation_not_pending');

  const late = await invite(owner, { email: 'late@example.test', role: 'reviewer' });
  const lateToken = await h.tokenFromMail('late@example.test', 'accounts.invitation');
  await h.app
    .db('invitations')
    .where({ id: late.body.id })
    .update({ expires_at: new Date(Date.now() - 1000) });
  const expired = await accept({ token: lateToken, name: 'Late', password: NEW_PASSWORD });
  t.match(
    [expired.status, expired.body],
    [400, { code: 'invalid_token', details: { reason: 'expired' } }],
    'an expired invitation cannot be accepted',
  );
  const expiredList = await h.call(owner, 'GET', '/v1/invitations?status=expired');
  t.same(
    expiredList.body.items.map((i: { status: string }) => i.status),
    ['expired'],
  );
  t.equal((await h.app.db('users').where({ email: 'late@example.test' })).length, 0, 'no account was made');
});

t.test("another organization's invitation ids answer 404", async (t) => {
  const a = await signUp(h.app);
  const b = await signUp(h.app);
  const inv = await invite(b, { email: 'only-b@example.test', role: 'reviewer' });
  const del = await h.call(a, 'DELETE', `/v1/invitations/${inv.body.id}`);
  expectStatus(t, del, 404, 'not found, not forbidden');
  t.equal(del.body.code, 'not_found');
  t.same((await h.call(a, 'GET', '/v1/invitations')).body.items, [], "a's list does not show b's invitations");
  const wsB = await insertWorkspace(h.app, b.organization.id);
  expectStatus(
    t,
    await invite(a, { email: 'y@example.test', role: 'reviewer', workspace_ids: [wsB.id] }),
    400,
    "b's workspace cannot be granted by a",
  );
});

t.test('no answer ever carries a password, a password hash or a token hash', async (t) => {
  await assertNoSecretsLeaked(t, h, [TEST_PASSWORD, NEW_PASSWORD]);
});
