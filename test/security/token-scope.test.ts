import t from 'tap';
import type { OpenApiDocument } from '../../core/http/openapi-types.js';
import { addMember, onPlan, signUp } from '../helpers/accounts.js';
import { deliverMime, inboundEmail } from '../helpers/mail.js';
import {
  ALL_PLUGINS,
  MAIL_SECRET,
  OFFLINE_ADAPTERS,
  apiToken,
  call,
  createWorkspace,
  fieldErrors,
  startSecurityApp,
  uid,
} from './helpers.js';

/**
 * A token limited to some workspaces reaches nothing of the organization's other workspaces, by
 * any route: it cannot mint a wider token, and no read of the whole document answers it anything
 * of another workspace (its id, name, address, tickets), whatever ids the path and query name.
 */

const app = await startSecurityApp(t, { ...ALL_PLUGINS, ...OFFLINE_ADAPTERS });
const owner = await signUp(app);
await onPlan(app, owner.organization.id, 'growth');
const wsA = await createWorkspace(app, owner, `Alpha ${uid()}`);
const wsB = await createWorkspace(app, owner, `Bravo ${uid()}`);

// A ticket in B, from an email to B's inbound address.
const subjectB = `Bravo checkout fails ${uid()}`;
const delivered = await deliverMime(
  app,
  inboundEmail({
    to: wsB.inbound_address as string,
    from: `Ada <ada-${uid()}@example.com>`,
    subject: subjectB,
    body: 'The checkout button does nothing.',
  }),
  wsB.inbound_address as string,
  MAIL_SECRET,
);
const ticketB = delivered.body.results?.[0]?.ticket_id as string;

const markers = [wsB.id, wsB.name, wsB.inbound_address as string, ticketB, subjectB];

t.test('the setup made a ticket in the other workspace', (t) => {
  t.equal(delivered.status, 200, delivered.payload);
  t.match(ticketB, /^tkt_/);
  t.end();
});

t.test('a scoped token mints only tokens within itself', async (t) => {
  const scoped = await apiToken(app, owner, { role: 'admin', workspace_ids: [wsA.id] });
  for (const workspace_ids of [undefined, null]) {
    const child = await call(app, scoped, 'POST', '/v1/tokens', {
      name: `child ${uid()}`,
      role: 'admin',
      ...(workspace_ids === undefined ? {} : { workspace_ids }),
    });
    t.equal(child.status, 201, `workspace_ids ${String(workspace_ids)}: created`);
    t.same(child.body.workspace_ids, [wsA.id], 'with the scope of the token that made it');
    const childAuth = { auth: { headers: { authorization: `Bearer ${child.body.token}` } } };
    t.equal(
      (await call(app, childAuth, 'GET', `/v1/workspaces/${wsB.id}`)).status,
      403,
      'the new token cannot open the other workspace',
    );
    t.equal((await call(app, childAuth, 'GET', `/v1/tickets/${ticketB}`)).status, 403, 'nor its tickets');
  }
  const wider = await call(app, scoped, 'POST', '/v1/tokens', {
    name: 'wider',
    role: 'admin',
    workspace_ids: [wsA.id, wsB.id],
  });
  t.equal(wider.status, 403, 'naming a workspace outside its scope is refused');
  const higher = await call(app, scoped, 'POST', '/v1/tokens', { name: 'higher', role: 'owner' });
  t.equal(higher.status, 403, 'a higher role is refused');
  const later = await call(app, scoped, 'POST', '/v1/tokens', {
    name: 'later',
    role: 'admin',
    expires_at: new Date(Date.now() + 200 * 86_400_000).toISOString(),
  });
  t.equal(later.status, 400, 'an expiry after its own is refused');
  t.equal(fieldErrors(later.body)?.[0].path, 'payload.expires_at');
  const session = await call(app, owner, 'POST', '/v1/tokens', { name: 'from a session', role: 'admin' });
  t.equal(session.status, 201, 'a session keeps its rules');
  t.equal(session.body.workspace_ids, null, 'and makes an unscoped token');
});

t.test("a scoped token cannot widen anyone else's access either", async (t) => {
  const scoped = await apiToken(app, owner, { role: 'owner', workspace_ids: [wsA.id] });
  const invite = async (role: string, workspace_ids: string[]) =>
    call(app, scoped, 'POST', '/v1/invitations', { email: `new-${uid()}@example.test`, role, workspace_ids });
  t.equal((await invite('reviewer', [wsB.id])).status, 403, 'an invitation to the other workspace');
  t.equal((await invite('admin', [])).status, 403, 'an invitation as admin (every workspace)');
  t.equal((await invite('reviewer', [wsA.id])).status, 201, 'an invitation within its scope');
  const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [wsA.id] });
  const grant = await call(app, scoped, 'PATCH', `/v1/members/${reviewer.user.id}`, {
    workspace_ids: [wsA.id, wsB.id],
  });
  t.equal(grant.status, 403, 'granting the other workspace to a member');
  t.equal(
    (await call(app, scoped, 'PATCH', `/v1/members/${reviewer.user.id}`, { role: 'admin' })).status,
    403,
    'making a member admin (every workspace)',
  );
  t.equal(
    (await call(app, scoped, 'PATCH', `/v1/members/${owner.user.id}`, { role: 'admin' })).status,
    403,
    'changing an owner',
  );
  const within = await call(app, scoped, 'PATCH', `/v1/members/${reviewer.user.id}`, { workspace_ids: [wsA.id] });
  t.equal(within.status, 200, 'a change within its scope');
  const list = await call(app, scoped, 'GET', '/v1/members');
  t.notOk(list.payload.includes(wsB.id), 'the member list shows no grant outside its scope');
});

t.test('no read answers a scoped token anything of another workspace', async (t) => {
  const scoped = await apiToken(app, owner, { role: 'owner', workspace_ids: [wsA.id] });
  const doc = JSON.parse((await app.server.inject({ url: '/v1/openapi.json' })).payload) as OpenApiDocument;
  const leaks: string[] = [];
  let reads = 0;
  for (const [path, item] of Object.entries(doc.paths)) {
    const op = item.get;
    if (!op?.operationId || path.startsWith('/v1/openapi')) continue;
    const params = op.parameters ?? [];
    const pathParams = params.filter((p) => p.in === 'path').map((p) => p.name);
    const idFor = (name: string): string[] => {
      if (/workspace/i.test(name)) return [wsB.id];
      if (/ticket/i.test(name)) return [ticketB];
      if (name === 'id')
        return path.startsWith('/v1/workspaces')
          ? [wsB.id]
          : path.startsWith('/v1/tickets')
            ? [ticketB]
            : [wsB.id, ticketB];
      return ['x'];
    };
    let urls = [path];
    for (const name of pathParams) urls = urls.flatMap((u) => idFor(name).map((id) => u.replace(`{${name}}`, id)));
    const query = params
      .filter((p) => p.in === 'query' && /^workspace_ids?$/.test(p.name))
      .map((p) => `${p.name}=${wsB.id}`);
    for (const base of urls) {
      for (const url of query.length ? [base, `${base}?${query.join('&')}`] : [base]) {
        const res = await app.server.inject({ method: 'GET', url, headers: scoped.auth.headers });
        reads++;
        if (res.statusCode >= 300) continue;
        const found = markers.filter((m) => m && res.payload.includes(m));
        if (found.length) leaks.push(`${op.operationId} GET ${url} → ${res.statusCode} shows ${found.join(', ')}`);
      }
    }
  }
  t.ok(reads > 100, `${reads} reads`);
  t.same(leaks, [], 'nothing of the other workspace in any answer');
});
