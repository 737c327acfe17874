import t from 'tap';
import type { App } from '../../core/kernel/app.js';
import { TEST_PASSWORD, signUp } from '../helpers/accounts.js';
import { startTestApp } from '../helpers/app.js';

/**
 * `request.actor()` end to end: who changed what, from which address, with which client and
 * request, as the audit log records it; and the client address follows the one trusted-proxy rule
 * (`server.trustProxy`), for audit entries and for the sign-in throttle alike.
 */

interface AuditRow {
  actor_type: string;
  actor_id: string | null;
  actor_email: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

const renameOrg = (app: App, cookie: string, name: string, headers: Record<string, string>) =>
  app.server.inject({ method: 'PATCH', url: '/v1/orgs/current', payload: { name }, headers: { cookie, ...headers } });
const lastUpdate = async (app: App, orgId: string) =>
  (await app
    .db('audit_entries')
    .where({ org_id: orgId, action: 'organization.updated' })
    .orderBy('created_at', 'desc')
    .first()) as AuditRow;
const login = (app: App, email: string, password: string, headers: Record<string, string>) =>
  app.server.inject({ method: 'POST', url: '/v1/auth/login', payload: { email, password }, headers });

t.test('no trusted proxy (the default)', async (t) => {
  const app = await startTestApp(t, { server: { trustProxy: false } });
  const owner = await signUp(app);

  await t.test('an audited change records the actor, the socket address, the user agent and the request', async (t) => {
    const res = await renameOrg(app, owner.cookie, 'Acme Renamed', {
      'x-forwarded-for': '203.0.113.66',
      'user-agent': 'Scenario/1.0',
    });
    t.equal(res.statusCode, 200);
    const row = await lastUpdate(app, owner.organization.id);
    t.match(row, { actor_type: 'user', actor_id: owner.user.id, actor_email: owner.email, user_agent: 'Scenario/1.0' });
    t.equal(row.ip, '127.0.0.1', 'the spoofed X-Forwarded-For is ignored: the socket address is recorded');
    t.ok(row.request_id, 'with the request id');
    await renameOrg(app, owner.cookie, 'Acme Again', { 'user-agent': 'Scenario/1.0' });
    t.not((await lastUpdate(app, owner.organization.id)).request_id, row.request_id, 'each request its own id');
  });

  await t.test('a guesser rotating spoofed X-Forwarded-For addresses still hits the per-client limit', async (t) => {
    const victim = await signUp(app);
    const answers: number[] = [];
    for (let i = 0; i < 11; i++)
      answers.push((await login(app, victim.email, `guess ${i}`, { 'x-forwarded-for': `100.64.${i}.9` })).statusCode);
    t.same([...new Set(answers.slice(0, 10))], [401], 'ten guesses are checked');
    t.equal(answers[10], 429, 'the eleventh is refused: every guess counted against the same address');
  });
});

t.test('one trusted proxy (trustProxy: 1)', async (t) => {
  const app = await startTestApp(t, { server: { trustProxy: 1 } });
  const owner = await signUp(app);

  await t.test('the audited address is the one our proxy appended, not what the client wrote', async (t) => {
    const res = await renameOrg(app, owner.cookie, 'Behind The Proxy', { 'x-forwarded-for': '1.2.3.4, 198.51.100.7' });
    t.equal(res.statusCode, 200);
    t.equal((await lastUpdate(app, owner.organization.id)).ip, '198.51.100.7');
  });

  await t.test('the sign-in throttle keys on the same hop: forging the left part does not reset it', async (t) => {
    const victim = await signUp(app);
    const answers: number[] = [];
    for (let i = 0; i < 11; i++)
      answers.push(
        (await login(app, victim.email, `guess ${i}`, { 'x-forwarded-for': `100.64.${i}.9, 198.51.100.23` }))
          .statusCode,
      );
    t.equal(answers[10], 429, 'the same client behind the proxy is refused');
    const home = await login(app, victim.email, TEST_PASSWORD, { 'x-forwarded-for': '198.51.100.23, 192.0.2.10' });
    t.equal(home.statusCode, 200, 'another client (another appended address) signs in');
    const session = (await app
      .db('sessions')
      .where({ user_id: victim.user.id })
      .orderBy('created_at', 'desc')
      .first()) as { ip: string };
    t.equal(session.ip, '192.0.2.10', 'and its session records that address');
  });
});
