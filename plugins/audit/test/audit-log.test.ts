import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { allPages } from '../../../test/helpers/call.js';
import { auditApp, json, setPlan } from './helpers/setup.js';

interface Entry {
  id: string;
  action: string;
  actor: { type: string; id: string | null; email: string | null };
  target: { type: string; id: string | null } | null;
  created_at: string;
  changes: Record<string, { before: unknown; after: unknown }> | null;
}
interface Page {
  items: Entry[];
  next_cursor: string | null;
}

t.test('an owner reads the audit log of administrative changes, newest first, with filters and a cursor', async (t) => {
  const app = await auditApp(t);
  const owner = await signUp(app, { orgName: 'Acme' });
  const admin = await addMember(app, owner, { role: 'admin' });
  const reviewer = await addMember(app, owner, { role: 'reviewer' });
  const changed = await app.server.inject({
    method: 'PATCH',
    url: `/v1/members/${reviewer.user.id}`,
    payload: { role: 'admin' },
    ...owner.auth,
  });
  t.equal(changed.statusCode, 200, json(changed).message as string);

  const all = await app.server.inject({ method: 'GET', url: '/v1/audit', ...owner.auth });
  t.equal(all.statusCode, 200);
  const page = json<Page>(all);
  const actions = page.items.map((e) => e.action);
  t.ok(actions.includes('organization.created'), 'the signup is there');
  t.ok(actions.includes('member.role_changed'), 'the role change is there');
  const times = page.items.map((e) => e.created_at);
  t.same(times, [...times].sort().reverse(), 'newest first');
  const role = page.items.find((e) => e.action === 'member.role_changed')!;
  t.same(role.changes, { role: { before: 'reviewer', after: 'admin' } });
  t.same(role.actor, { type: 'user', id: owner.user.id, email: owner.email });
  t.same(role.target, { type: 'user', id: reviewer.user.id });

  const prefix = json<Page>(await app.server.inject({ method: 'GET', url: '/v1/audit?action=member.', ...owner.auth }));
  t.ok(prefix.items.length > 0 && prefix.items.every((e) => e.action.startsWith('member.')), 'action prefix');
  const star = json<Page>(await app.server.inject({ method: 'GET', url: '/v1/audit?action=member.*', ...owner.auth }));
  t.same(
    star.items.map((e) => e.id),
    prefix.items.map((e) => e.id),
    'prefix with *',
  );
  const exact = json<Page>(
    await app.server.inject({ method: 'GET', url: '/v1/audit?action=member.role_changed', ...owner.auth }),
  );
  t.same(
    exact.items.map((e) => e.action),
    ['member.role_changed'],
  );
  const byEmail = json<Page>(
    await app.server.inject({
      method: 'GET',
      url: `/v1/audit?actor=${encodeURIComponent(owner.email.toUpperCase())}`,
      ...owner.auth,
    }),
  );
  t.ok(
    byEmail.items.length > 0 && byEmail.items.every((e) => e.actor.email === owner.email),
    'actor by email, any case',
  );
  const byTarget = json<Page>(
    await app.server.inject({
      method: 'GET',
      url: `/v1/audit?target_type=user&target_id=${reviewer.user.id}`,
      ...owner.auth,
    }),
  );
  t.ok(byTarget.items.length > 0 && byTarget.items.every((e) => e.target?.id === reviewer.user.id), 'target');
  const future = json<Page>(
    await app.server.inject({
      method: 'GET',
      url: `/v1/audit?from=${new Date(Date.now() + 60_000).toISOString()}`,
      ...owner.auth,
    }),
  );
  t.same(future.items, [], 'date range');
  const past = json<Page>(await app.server.inject({ method: 'GET', url: `/v1/audit?to=2020-01-01`, ...owner.auth }));
  t.same(past.items, []);

  // The cursor walks the same entries one by one.
  const pages = await allPages(app, admin, '/v1/audit?limit=2');
  for (const p of pages) t.equal(p.status, 200);
  const seen = pages.flatMap((p) => (p.body as Page).items.map((e) => e.id));
  t.same(
    seen,
    page.items.map((e) => e.id),
    'the cursor pages give the whole list in order',
  );

  t.equal((await app.server.inject({ method: 'GET', url: '/v1/audit?cursor=garbage', ...owner.auth })).statusCode, 400);
  t.equal((await app.server.inject({ method: 'GET', url: '/v1/audit?from=yesterday', ...owner.auth })).statusCode, 400);
  const other = await addMember(app, owner, { role: 'client_viewer' });
  t.equal(
    (await app.server.inject({ method: 'GET', url: '/v1/audit', ...other.auth })).statusCode,
    403,
    'client viewers do not read the log',
  );
  t.equal((await app.server.inject({ method: 'GET', url: '/v1/audit' })).statusCode, 401);

  // Another organization sees only its own entries, whatever it filters on.
  const stranger = await signUp(app, { orgName: 'Other' });
  const theirs = json<Page>(
    await app.server.inject({ method: 'GET', url: `/v1/audit?target_id=${reviewer.user.id}`, ...stranger.auth }),
  );
  t.same(theirs.items, []);
  const mine = json<Page>(await app.server.inject({ method: 'GET', url: '/v1/audit', ...stranger.auth }));
  t.ok(
    mine.items.every((e) => !page.items.some((x) => x.id === e.id)),
    'no entry of another organization',
  );
});

t.test('the export streams CSV or JSON Lines on plans with audit export, and is itself audited', async (t) => {
  const app = await auditApp(t);
  const owner = await signUp(app, { orgName: 'Exporter' });
  await addMember(app, owner, { role: 'admin' });

  const refused = await app.server.inject({ method: 'GET', url: '/v1/audit/export?format=csv', ...owner.auth });
  t.equal(refused.statusCode, 402);
  t.equal(json(refused).code, 'feature_not_in_plan');

  await setPlan(app, owner.organization.id, 'enterprise');
  const csv = await app.server.inject({ method: 'GET', url: '/v1/audit/export?format=csv', ...owner.auth });
  t.equal(csv.statusCode, 200);
  t.match(csv.headers['content-type'], /^text\/csv/);
  t.match(csv.headers['content-disposition'], /attachment; filename="audit-\d{4}-\d{2}-\d{2}\.csv"/);
  const lines = csv.payload.trim().split('\r\n');
  t.equal(
    lines[0],
    'id,created_at,action,actor_type,actor_id,actor_email,target_type,target_id,workspace_id,ip,user_agent,request_id,changes,metadata',
  );
  t.ok(
    lines.some((l) => l.includes(',organization.created,')),
    'entries as rows',
  );
  t.ok(lines.some((l) => l.includes(',invitation.created,')));

  const jsonl = await app.server.inject({
    method: 'GET',
    url: '/v1/audit/export?format=jsonl&action=invitation.',
    ...owner.auth,
  });
  t.equal(jsonl.statusCode, 200);
  t.match(jsonl.headers['content-type'], /^application\/x-ndjson/);
  const entries = jsonl.payload
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Entry);
  t.ok(entries.length > 0 && entries.every((e) => e.action.startsWith('invitation.')), 'filters apply');

  const exported = json<Page>(
    await app.server.inject({ method: 'GET', url: '/v1/audit?action=audit.exported', ...owner.auth }),
  );
  t.equal(exported.items.length, 2, 'each export is audited');
  t.equal(
    (await app.server.inject({ method: 'GET', url: '/v1/audit/export?format=xml', ...owner.auth })).statusCode,
    400,
  );
});

t.test('a formula in a field does not run in a spreadsheet', async (t) => {
  const { csvLine } = await import('../services/entries.js');
  const line = csvLine({
    id: 'aud_1',
    org_id: 'org_1',
    action: 'x.y',
    actor: { type: 'user', id: null, email: '=HYPERLINK("http://evil")' },
    target: null,
    workspace_id: null,
    changes: null,
    metadata: { note: 'a,b' },
    ip: null,
    user_agent: null,
    request_id: null,
    created_at: '2026-01-01T00:00:00.000Z',
  });
  t.match(line, /,"'=HYPERLINK\(""http:\/\/evil""\)",/);
  t.match(line, /"\{""note"":""a,b""\}"\r\n$/);
});

t.test('the audit and privacy operations are in the OpenAPI document, under their sections', async (t) => {
  const app = await auditApp(t);
  const res = await app.server.inject({ method: 'GET', url: '/v1/openapi.json' });
  t.equal(res.statusCode, 200);
  const doc = json<{ paths: Record<string, Record<string, { operationId: string; tags: string[] }>> }>(res);
  const ops = Object.values(doc.paths)
    .flatMap((p) => Object.values(p))
    .map((o) => `${o.tags?.[0]}:${o.operationId}`);
  for (const id of [
    'listAuditEntries',
    'exportAuditEntries',
    'getAuditStream',
    'putAuditStream',
    'deleteAuditStream',
    'rotateAuditStreamSecret',
    'testAuditStream',
  ])
    t.ok(ops.includes(`audit:${id}`), id);
  for (const id of ['closeOrganization', 'createPrivacyErasure', 'createPrivacyExport', 'deletePrivacyTicket'])
    t.ok(ops.includes(`privacy:${id}`), id);
  t.notOk(
    Object.keys(doc.paths).some((p) => p.startsWith('/downloads')),
    'the download page is not an API operation',
  );
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const result = await new Validator().validate(doc);
  t.equal(result.valid, true, `the document validates: ${JSON.stringify(result.errors ?? '').slice(0, 300)}`);
});
