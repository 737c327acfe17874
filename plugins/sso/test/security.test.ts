import t from 'tap';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { addMember, insertWorkspace, signUp, TEST_PASSWORD } from '../../../test/helpers/accounts.js';
import { json, setPlan, ssoConnection, verifiedDomain } from './helpers/fixtures.js';

interface Overview {
  sso: {
    available: boolean;
    enforced: boolean;
    enforcement: {
      can_enable: boolean;
      blockers: Array<{ code: string; members?: Array<{ email: string }>; total?: number }>;
    };
    recovery_codes: { remaining: number; generated_at: string | null };
    session_sso: boolean;
  };
  governance: Record<string, unknown>;
}

t.test('connections, enforcement, recovery codes and governance', async (t) => {
  const app = await startTestApp(t);
  const owner = await signUp(app, { email: 'owner@umbrella.test' });
  const other = await signUp(app, { email: 'owner@elsewhere.test' });
  const oidc = {
    protocol: 'oidc',
    name: 'Umbrella IdP',
    issuer: 'https://idp.umbrella.test',
    client_id: 'client',
    client_secret: 'top-secret-value-1234',
  };
  const overview = async () =>
    json<Overview>(await app.server.inject({ method: 'GET', url: '/v1/security', ...owner.auth }));
  const setEnforced = (enforced: boolean) =>
    app.server.inject({ method: 'PUT', url: '/v1/security/sso/enforcement', ...owner.auth, payload: { enforced } });
  const setGovernance = (payload: { min_approvers: number; roles: string[] }) =>
    app.server.inject({ method: 'PUT', url: '/v1/security/governance', ...owner.auth, payload });
  /** The owner's password sign-in, and the break-glass one with a recovery code. */
  const passwordSignIn = () =>
    app.server.inject({
      method: 'POST',
      url: '/v1/auth/login',
      payload: { email: 'owner@umbrella.test', password: TEST_PASSWORD },
    });
  const recover = (code: string, password = TEST_PASSWORD) =>
    app.server.inject({
      method: 'POST',
      url: '/v1/auth/sso/recovery',
      payload: { email: 'owner@umbrella.test', password, code },
    });

  await t.test('plans without single sign-on, roles and tenancy', async (t) => {
    const noPlan = await app.server.inject({
      method: 'POST',
      url: '/v1/security/sso/connections',
      ...owner.auth,
      payload: oidc,
    });
    t.equal(noPlan.statusCode, 402);
    t.equal(json<{ code: string }>(noPlan).code, 'feature_not_in_plan');
    await setPlan(app, owner.organization.id);
    const admin = await addMember(app, owner, { role: 'admin', email: 'admin@umbrella.test' });
    t.equal(
      (await app.server.inject({ method: 'POST', url: '/v1/security/sso/connections', ...admin.auth, payload: oidc }))
        .statusCode,
      403,
      'owners only',
    );
    const created = await app.server.inject({
      method: 'POST',
      url: '/v1/security/sso/connections',
      ...owner.auth,
      payload: oidc,
    });
    t.equal(created.statusCode, 201, created.payload);
    const id = json<{ id: string }>(created).id;
    t.notOk(created.payload.includes('top-secret'), 'secret never returned');
    t.equal((await ssoConnection(app, admin, id).update({ name: 'Renamed' })).statusCode, 200, 'admins rename');
    t.equal(
      (await ssoConnection(app, admin, id).update({ client_secret: 'x' })).statusCode,
      403,
      'provider settings: owners',
    );
    const replaced = await ssoConnection(app, owner, id).update({
      client_secret: 'a-new-secret',
      domains: ['umbrella.test'],
    });
    t.equal(replaced.statusCode, 200);
    const claims = await app
      .db<AuditEntry>('audit_entries')
      .where({ org_id: owner.organization.id, action: 'sso.domain_claimed' });
    t.same(
      claims.map((e) => e.metadata),
      [{ domain: 'umbrella.test', via: 'connection' }],
      "the connection's new domain is claimed for the organization, audited as claimed through it",
    );
    t.same(
      await app.db('sso_domains').where({ org_id: owner.organization.id }).pluck('status'),
      ['pending'],
      'pending until its TXT record is checked',
    );
    const audit = await app
      .db<AuditEntry>('audit_entries')
      .where({ org_id: owner.organization.id, action: 'sso.connection_updated' })
      .orderBy('created_at', 'desc')
      .first();
    t.same(audit?.changes?.client_secret, { before: '[redacted]', after: '[redacted]' }, 'audited, redacted');
    for (const [method, url] of [
      ['PATCH', `/v1/security/sso/connections/${id}`],
      ['DELETE', `/v1/security/sso/connections/${id}`],
      ['POST', `/v1/security/sso/connections/${id}/test`],
    ] as const) {
      const res = await app.server.inject({
        method,
        url,
        ...other.auth,
        payload: method === 'PATCH' ? { name: 'x' } : undefined,
      });
      t.equal(res.statusCode, 404, `${method} ${url} from another organization`);
    }
    const reviewer = await addMember(app, owner, { role: 'reviewer', email: 'rita@umbrella.test' });
    t.equal(
      (await app.server.inject({ method: 'GET', url: '/v1/security', ...reviewer.auth })).statusCode,
      403,
      'owners and admins read the overview',
    );
  });

  await t.test('enforcement lists what blocks it, then requires single sign-on', async (t) => {
    const stray = await addMember(app, owner, { role: 'reviewer', email: 'contractor@gmail.test' });
    const first = await overview();
    t.same(
      first.sso.enforcement.blockers.map((b) => b.code),
      ['no_connection', 'members_outside_domains', 'not_signed_in_with_sso'],
      'what blocks it',
    );
    const outside = first.sso.enforcement.blockers.find((b) => b.code === 'members_outside_domains')!;
    t.equal(outside.total, 4);
    t.ok(outside.members!.some((m) => m.email === 'contractor@gmail.test'));
    const refused = await setEnforced(true);
    t.equal(refused.statusCode, 409);
    t.equal(json<{ code: string }>(refused).code, 'enforcement_blocked');

    await verifiedDomain(app, owner.organization.id, 'umbrella.test');
    await app.server.inject({ method: 'DELETE', url: `/v1/members/${stray.user.id}`, ...owner.auth });
    // The owner proves single sign-on works by using it (the sign-in itself is covered by the OIDC and SAML tests).
    await app.db('sessions').where({ user_id: owner.user.id }).update({ sso: true });
    await app
      .db('users')
      .where({ org_id: owner.organization.id })
      .whereNot('id', owner.user.id)
      .whereNull('removed_at')
      .update({ removed_at: new Date() });
    const ready = await overview();
    t.same(ready.sso.enforcement, { can_enable: true, blockers: [] });
    t.equal(ready.sso.session_sso, true);

    const on = await setEnforced(true);
    t.equal(on.statusCode, 200, on.payload);
    const body = json<{
      sso: { enforced: boolean; recovery_codes: { remaining: number } };
      recovery_codes: { codes: string[] };
    }>(on);
    t.equal(body.sso.enforced, true);
    t.equal(body.recovery_codes.codes.length, 10);
    t.equal(body.sso.recovery_codes.remaining, 10);
    const stored = await app.db('sso_recovery_codes').where({ org_id: owner.organization.id });
    t.notOk(
      stored.some((r: { code_hash: string }) => body.recovery_codes.codes.some((c) => r.code_hash.includes(c))),
      'stored hashed',
    );

    const password = await passwordSignIn();
    t.equal(password.statusCode, 403, 'password sign-in refused');
    t.equal(json<{ code: string }>(password).code, 'sso_required');

    const code = body.recovery_codes.codes[0];
    const wrong = await recover(code, 'wrong password!');
    t.equal(wrong.statusCode, 401, 'wrong password');
    const recovered = await recover(code.toUpperCase());
    t.equal(recovered.statusCode, 200, recovered.payload);
    t.equal(json<{ session: { sso: boolean } }>(recovered).session.sso, false);
    const again = await recover(code);
    t.equal(again.statusCode, 401, 'a recovery code works once');

    const regenerated = await app.server.inject({
      method: 'POST',
      url: '/v1/security/sso/recovery-codes',
      ...owner.auth,
    });
    t.equal(regenerated.statusCode, 200);
    const old = await recover(body.recovery_codes.codes[1]);
    t.equal(old.statusCode, 401, 'replaced codes stop working');
    const fresh = json<{ codes: string[] }>(regenerated).codes[0];
    t.equal((await recover(fresh)).statusCode, 200);

    const off = await setEnforced(false);
    t.same(json<{ recovery_codes: { codes: string[] } }>(off).recovery_codes.codes, []);
    t.equal((await passwordSignIn()).statusCode, 200, 'password sign-in is back');
    const notEnforced = await recover(fresh);
    t.equal(
      json<{ code: string }>(notEnforced).code,
      'sso_not_enforced',
      'break-glass only while single sign-on is required',
    );
  });

  await t.test('no owner with a password blocks enforcement', async (t) => {
    await app.db('users').where({ id: owner.user.id }).update({ password_hash: null });
    const o = await overview();
    t.same(
      o.sso.enforcement.blockers.map((b) => b.code),
      ['no_owner_with_password'],
    );
  });

  await t.test('governance: roles and minimum approvers, eligible approvers per workspace', async (t) => {
    const ws = await insertWorkspace(app, owner.organization.id, { name: 'Checkout' });
    const g = (await overview()).governance;
    t.same(
      [g.available, g.min_approvers, g.roles, g.defaults, g.max_min_approvers],
      [true, 1, ['owner', 'admin'], { min_approvers: 1, roles: ['owner', 'admin'] }, 5],
    );
    t.equal((await setGovernance({ min_approvers: 6, roles: ['owner'] })).statusCode, 400, 'above the maximum');
    t.equal(
      (await setGovernance({ min_approvers: 2, roles: ['client_viewer'] })).statusCode,
      400,
      'roles among owner, admin, reviewer',
    );
    const set = await setGovernance({ min_approvers: 2, roles: ['reviewer', 'owner'] });
    t.equal(set.statusCode, 200, set.payload);
    const body = json<{
      min_approvers: number;
      roles: string[];
      eligible_approvers: number;
      workspaces_below_minimum: Array<{ id: string; eligible: number }>;
    }>(set);
    t.same([body.min_approvers, body.roles, body.eligible_approvers], [2, ['owner', 'reviewer'], 1]);
    t.same(body.workspaces_below_minimum, [{ id: ws.id, name: 'Checkout', eligible: 1 }]);
    const org = await app
      .db<{ id: string; approval_min_approvers: number }>('organizations')
      .where({ id: owner.organization.id })
      .first();
    t.equal(org?.approval_min_approvers, 2, 'stored on the organization');
    const policy = await (
      app.container.resolve('approvalGovernance') as { policy(o: string): Promise<unknown> }
    ).policy(owner.organization.id);
    t.same(policy, { minApprovers: 2, roles: ['owner', 'reviewer'] }, 'the fix loop reads it from the container');
    await setPlan(app, owner.organization.id, 'indie');
    t.equal((await setGovernance({ min_approvers: 1, roles: ['owner'] })).statusCode, 402);
  });
});
