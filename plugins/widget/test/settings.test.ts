import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { HOST, json, workspace } from './helpers.js';

// The fix loop is on here: a test report must not be diagnosed (no tokens spent).
const app = await startTestApp(t, { plugins: { fixes: { enabled: true } } });

t.test('an admin changes the widget settings; every change is audited', async (t) => {
  const owner = await signUp(app, { orgName: 'Settings Co' });
  const ws = await workspace(app, owner, []);
  const first = await app.server.inject({ method: 'GET', url: `/v1/workspaces/${ws.id}/widget`, ...owner.auth });
  t.equal(first.statusCode, 200, first.payload);
  const s = json<
    Record<string, unknown> & {
      install: { status: string };
      preview: { texts: Record<string, string> };
      embed_snippet: string;
    }
  >(first);
  t.equal(s.public_key, ws.widget.public_key, 'the install made with the workspace');
  t.same(s.allowed_origins, []);
  t.equal(s.install.status, 'never_seen');
  t.equal(s.preview.texts.button, 'Report a problem');
  t.match(s.embed_snippet, new RegExp(`/widget.js" data-key="${ws.widget.public_key}"`));

  const admin = await addMember(app, owner, { role: 'admin' });
  const res = await app.server.inject({
    method: 'PATCH',
    url: `/v1/workspaces/${ws.id}/widget`,
    ...admin.auth,
    payload: {
      allowed_origins: [`${HOST}/`, 'http://localhost:8080'],
      capture: { network: false, max_entries: 10 },
      passive_collection: { enabled: true },
    },
  });
  t.equal(res.statusCode, 200, res.payload);
  const after = json<{
    allowed_origins: string[];
    capture: Record<string, unknown>;
    passive_collection: { enabled: boolean };
  }>(res);
  t.same(after.allowed_origins, [HOST, 'http://localhost:8080'], 'normalized origins');
  t.same(after.capture, { console: true, network: false, screenshot: true, max_entries: 10 });
  t.equal(after.passive_collection.enabled, true);
  const wsAnswer = json<{ widget: { allowed_origins: string[] } }>(
    await app.server.inject({ method: 'GET', url: `/v1/workspaces/${ws.id}`, ...owner.auth }),
  );
  t.same(
    wsAnswer.widget.allowed_origins,
    [HOST, 'http://localhost:8080'],
    'the workspace’s widget install carries them',
  );

  const entry = (await app
    .db('audit_entries')
    .where({ org_id: owner.organization.id, action: 'widget.settings_updated' })
    .first()) as {
    actor_id: string;
    target_id: string;
    changes: Record<string, { before: unknown; after: unknown }> | string;
  };
  const changes =
    typeof entry.changes === 'string' ? (JSON.parse(entry.changes) as Record<string, unknown>) : entry.changes;
  t.equal(entry.actor_id, admin.user.id);
  t.equal(entry.target_id, ws.id);
  t.same(Object.keys(changes).sort(), [
    'allowed_origins',
    'capture_network',
    'max_entries',
    'passive_collection_enabled',
  ]);

  const secretBefore = json<{ identity_secret: string }>(first).identity_secret;
  const rotated = json<{ identity_secret: string }>(
    await app.server.inject({
      method: 'PATCH',
      url: `/v1/workspaces/${ws.id}/widget`,
      payload: { rotate_identity_secret: true },
      ...owner.auth,
    }),
  );
  t.not(rotated.identity_secret, secretBefore, 'a new identity secret');

  const keyRes = await app.server.inject({
    method: 'POST',
    url: `/v1/workspaces/${ws.id}/widget/rotate-key`,
    ...owner.auth,
  });
  t.equal(keyRes.statusCode, 200);
  t.ok(
    await app.db('audit_entries').where({ org_id: owner.organization.id, action: 'widget.key_rotated' }).first(),
    'key rotation audited',
  );

  const reviewer = await addMember(app, owner, { role: 'reviewer' });
  t.equal(
    (await app.server.inject({ method: 'GET', url: `/v1/workspaces/${ws.id}/widget`, ...reviewer.auth })).statusCode,
    403,
  );
  t.equal(
    (
      await app.server.inject({
        method: 'PATCH',
        url: `/v1/workspaces/${ws.id}/widget`,
        payload: { passive_collection: { enabled: false } },
        ...reviewer.auth,
      })
    ).statusCode,
    403,
  );
  t.equal(
    (await app.server.inject({ method: 'PATCH', url: `/v1/workspaces/${ws.id}/widget`, payload: {}, ...owner.auth }))
      .statusCode,
    400,
    'an empty patch',
  );
  t.equal(
    (
      await app.server.inject({
        method: 'PATCH',
        url: `/v1/workspaces/${ws.id}/widget`,
        payload: { capture: { max_entries: 1000 } },
        ...owner.auth,
      })
    ).statusCode,
    400,
  );

  t.equal(
    (await app.server.inject({ method: 'POST', url: `/v1/workspaces/${ws.id}/archive`, ...owner.auth })).statusCode,
    200,
  );
  const archived = await app.server.inject({
    method: 'PATCH',
    url: `/v1/workspaces/${ws.id}/widget`,
    payload: { passive_collection: { enabled: false } },
    ...owner.auth,
  });
  t.equal(archived.statusCode, 409);
  t.equal(json(archived).code, 'workspace_archived');
});

t.test('a test report is a closed ticket of origin widget that no diagnosis touches', async (t) => {
  const owner = await signUp(app, { orgName: 'Test Report Co', locale: 'it' });
  const ws = await workspace(app, owner, []);
  const res = await app.server.inject({
    method: 'POST',
    url: `/v1/workspaces/${ws.id}/widget/test-report`,
    ...owner.auth,
  });
  t.equal(res.statusCode, 201, res.payload);
  const ticket = json<{
    id: string;
    origin: string;
    state: string;
    labels: string[];
    subject: string;
    messages: Array<{ widget_context: { console: unknown[] } }>;
  }>(res);
  t.equal(ticket.origin, 'widget');
  t.equal(ticket.state, 'closed');
  t.same(ticket.labels, ['widget_test']);
  t.equal(ticket.subject, 'Segnalazione di prova del widget', 'in the caller’s language');
  t.equal(ticket.messages[0].widget_context.console.length, 1);
  // A real report of the same workspace, for comparison: the fix loop diagnoses it.
  const real = await app.server.inject({
    method: 'POST',
    url: '/v1/widget/reports',
    headers: { 'x-widget-key': ws.widget.public_key },
    payload: { email: 'c@example.com', message: 'Broken' },
  });
  t.equal(real.statusCode, 201, real.payload);
  const realId = json<{ ticket_id: string }>(real).ticket_id;
  // Let the relay deliver tickets.created to the fix loop.
  const until = Date.now() + 8000;
  while (Date.now() < until && !(await app.db('fix_jobs').where({ ticket_id: realId }).first()))
    await new Promise((r) => setTimeout(r, 100));
  t.ok(await app.db('fix_jobs').where({ ticket_id: realId }).first(), 'a real report is diagnosed');
  const jobs = await app.db('fix_jobs').where({ ticket_id: ticket.id }).count<
    Array<{
      n: string | number;
    }>
  >('* as n');
  t.equal(Number(jobs[0].n), 0, 'no diagnosis job');
  const again = json<{ state: string }>(
    await app.server.inject({ method: 'GET', url: `/v1/tickets/${ticket.id}`, ...owner.auth }),
  );
  t.equal(again.state, 'closed');
  t.ok(
    await app.db('audit_entries').where({ org_id: owner.organization.id, action: 'widget.test_report_sent' }).first(),
    'audited',
  );
  const report = (await app.db('widget_reports').where({ ticket_id: ticket.id }).first()) as { test: boolean };
  t.equal(report.test, true);
});
