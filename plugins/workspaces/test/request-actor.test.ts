import t from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { onPlan, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { startTestApp } from '../../../test/helpers/app.js';

/**
 * The workspaces routes pass `request.actor()`: their audit entries record the client address under
 * `server.trustProxy`, not the socket address built by hand (issue 28).
 */

interface AuditRow {
  actor_type: string;
  actor_id: string | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
}

const create = (app: App, owner: SignedUp, name: string, headers: Record<string, string>) =>
  app.server.inject({
    method: 'POST',
    url: '/v1/workspaces',
    payload: { name },
    headers: { cookie: owner.cookie, ...headers },
  });
const entry = async (app: App, owner: SignedUp, action: string, workspaceId: string) =>
  (await app
    .db('audit_entries')
    .where({ org_id: owner.organization.id, action, workspace_id: workspaceId })
    .first()) as AuditRow;

t.test('behind one trusted proxy, a new workspace is audited with the address the proxy appended', async (t) => {
  const app = await startTestApp(t, { server: { trustProxy: 1 } });
  const owner = await signUp(app);
  await onPlan(app, owner.organization.id, 'growth');
  const res = await create(app, owner, 'Proxied Shop', {
    'x-forwarded-for': '1.2.3.4, 198.51.100.7',
    'user-agent': 'Scenario/1.0',
  });
  t.equal(res.statusCode, 201);
  const row = await entry(app, owner, 'workspace.created', (res.result as { id: string }).id);
  t.match(
    row,
    { actor_type: 'user', actor_id: owner.user.id, ip: '198.51.100.7', user_agent: 'Scenario/1.0' },
    'not the client-written 1.2.3.4',
  );
  t.ok(row.request_id, 'with the request id');
});

t.test('with no trusted proxy, a spoofed X-Forwarded-For does not reach the archive entry', async (t) => {
  const app = await startTestApp(t, { server: { trustProxy: false } });
  const owner = await signUp(app);
  await onPlan(app, owner.organization.id, 'growth');
  const made = await create(app, owner, 'Plain Shop', {});
  const id = (made.result as { id: string }).id;
  const headers = { cookie: owner.cookie, 'x-forwarded-for': '203.0.113.66' };
  const res = await app.server.inject({ method: 'POST', url: `/v1/workspaces/${id}/archive`, headers });
  t.equal(res.statusCode, 200);
  t.equal((await entry(app, owner, 'workspace.archived', id)).ip, '127.0.0.1', 'the socket address is recorded');
});
