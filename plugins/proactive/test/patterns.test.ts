import t from 'tap';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { FixesOptions } from '../../fixes/options.js';
import { startProactive, type ProactiveHarness } from './helpers.js';

// One service for the whole file (each scenario signs up its own organizations).
let h: ProactiveHarness;
t.before(async () => {
  h = await startProactive(t);
});

interface TicketServiceLike {
  createTicket(trx: unknown, input: Record<string, unknown>): Promise<{ id: string }>;
}

const CHECKOUT_ERROR = (order: number) => ({
  type: 'TypeError',
  message: `Cannot read properties of undefined (reading 'total') for order ${order}`,
  level: 'error',
  frames: [
    { file: 'https://cdn.example.com/static/js/checkout.3f9a1c2b.js', function: 'computeTotal', line: 10, column: 4 },
    {
      file: 'https://cdn.example.com/static/js/vendor/react-dom.production.min.js',
      function: 'render',
      line: 1,
      column: 1,
    },
  ],
  user: { id: `u-${order}` },
});

/** An organization with one workspace, opted in or not (organization and workspace). */
async function tenant(orgName: string, optIn: boolean): Promise<{ owner: SignedUp; ws: { id: string } }> {
  const owner = await signUp(h.app, { orgName });
  if (optIn) t.equal((await h.call(owner, 'PATCH', '/v1/orgs/current', { patterns_opt_in: true })).status, 200);
  const ws = await h.workspace(owner, optIn ? { patterns_opt_in: true } : undefined);
  return { owner, ws };
}

/** A ticket following an error group of the workspace, with a diagnosis, optionally closed as resolved. */
async function ticketWithError(
  who: SignedUp,
  wsId: string,
  opts: { close: boolean; subject: string; customer?: { email: string; name: string }; order: number },
): Promise<string> {
  const c = await h.endpoint(who, wsId);
  const ingested = await h.ingest(c.id, c.token, CHECKOUT_ERROR(opts.order));
  const groupId = ingested.body.group_ids[0];
  const tickets = h.app.container.resolve<TicketServiceLike>('ticketService');
  const ticket = await h.app.db.transaction((trx) =>
    tickets.createTicket(trx, {
      orgId: who.organization.id,
      workspaceId: wsId,
      origin: 'email',
      subject: opts.subject,
      errorGroupId: groupId,
      customerEmail: opts.customer?.email ?? null,
      customerName: opts.customer?.name ?? null,
      category: 'bug',
    }),
  );
  await h.app.db('fix_diagnoses').insert({
    id: `dx_${ticket.id}`,
    org_id: who.organization.id,
    ticket_id: ticket.id,
    category: 'bug',
    confidence: 0.9,
    outcome: 'fix_queued',
    root_cause_md: `computeTotal reads cart.total before the cart of ${opts.customer?.name ?? 'the user'} (${opts.customer?.email ?? 'n/a'}) is loaded.\n\nMore notes.`,
    public_summary: `Checkout totals now wait for the cart to load; reported by ${opts.customer?.email ?? 'a user'}.`,
  });
  if (opts.close) {
    const closed = await h.call(who, 'POST', `/v1/tickets/${ticket.id}/close`, { reason: 'resolved' });
    if (closed.status !== 200) throw new Error(`close: ${closed.status} ${closed.payload}`);
  }
  return ticket.id;
}

t.test('patterns: learned from a resolved ticket, masked, shared only between opted-in organizations', async (t) => {
  const a = await tenant('Rocketshop Labs', true);
  const b = await tenant('Bakery Bits', true);
  const c = await tenant('Closed Circle', false);

  const customer = { email: 'jane.doe@example.com', name: 'Jane Doe' };
  const open = await ticketWithError(a.owner, a.ws.id, { close: false, subject: 'Checkout broken', order: 1 });
  const early = await h.call(a.owner, 'POST', '/v1/patterns', { ticket_id: open });
  t.equal(early.status, 409);
  t.equal(early.body.code, 'ticket_not_resolved');

  const resolved = await ticketWithError(a.owner, a.ws.id, {
    close: true,
    order: 42,
    customer,
    subject: 'Rocketshop Labs checkout broken for Jane Doe (jane.doe@example.com), card 4111 1111 1111 1111',
  });
  const created = await h.call(a.owner, 'POST', '/v1/patterns', {
    ticket_id: resolved,
    title: 'Total for Jane Doe <jane.doe@example.com> fails',
    diff_stats: { files_changed: 2, additions: 14, deletions: 3 },
  });
  t.equal(created.status, 201, created.payload);
  const p = created.body;
  t.equal(p.owned, true);
  t.equal(p.shared, true, 'shared by default when the organization and the workspace opted in');
  t.equal(p.workspace_id, a.ws.id);
  t.equal(p.source_ticket_id, resolved);
  t.equal(p.category, 'bug');
  t.equal(p.problem.error_type, 'TypeError');
  t.equal(p.problem.normalized_message, 'Cannot read properties of undefined (reading <str>) for order <n>');
  t.same(
    p.problem.frames,
    [{ file: 'js/checkout.js', function: 'computeTotal' }],
    'in-app frames only, no host, two path segments',
  );
  t.same(p.fix, { summary: p.fix.summary, files_changed: 2, additions: 14, deletions: 3 });
  t.match(p.fix.summary, /Checkout totals now wait for the cart to load/);
  for (const secret of ['jane', 'Jane', 'Doe', '4111 1111 1111 1111', 'Rocketshop', 'example.com']) {
    t.notOk(created.payload.includes(secret), `no customer or tenant data: ${secret}`);
  }
  t.match(p.title, /<customer>/, 'the customer is replaced');
  const dup = await h.call(a.owner, 'POST', '/v1/patterns', { ticket_id: resolved });
  t.equal(dup.status, 409);
  t.equal(dup.body.code, 'pattern_exists');
  t.equal(dup.body.details?.pattern_id, p.id);

  const privTicket = await ticketWithError(a.owner, a.ws.id, {
    close: true,
    subject: 'Checkout broken again',
    order: 7,
  });
  const priv = await h.call(a.owner, 'POST', '/v1/patterns', {
    ticket_id: privTicket,
    shared: false,
    fix_summary: 'Internal only',
  });
  t.equal(priv.status, 201, priv.payload);
  t.equal(priv.body.shared, false);

  // B (opted in) sees A's shared pattern anonymously, never the private one.
  const bList = await h.call(b.owner, 'GET', '/v1/patterns');
  t.equal(bList.status, 200, bList.payload);
  const seen = bList.body.items.find((x) => x.id === p.id);
  t.ok(seen, 'the shared pattern is listed');
  t.equal(seen!.owned, false);
  t.equal(seen!.workspace_id, null);
  t.equal(seen!.source_ticket_id, null);
  t.notOk(
    bList.payload.includes(a.owner.organization.id) ||
      bList.payload.includes(a.ws.id) ||
      bList.payload.includes(resolved),
    'no ids of the source organization',
  );
  t.notOk(
    bList.body.items.some((x) => x.id === priv.body.id),
    'the private pattern is not listed',
  );
  t.equal((await h.call(b.owner, 'GET', `/v1/patterns/${p.id}`)).status, 200);
  t.equal(
    (await h.call(b.owner, 'GET', `/v1/patterns/${priv.body.id}`)).status,
    404,
    "another organization's private pattern is 404",
  );
  t.equal(
    (await h.call(b.owner, 'PATCH', `/v1/patterns/${p.id}`, { title: 'mine' })).status,
    404,
    "a shared pattern is not the reader's to change",
  );
  t.equal((await h.call(b.owner, 'DELETE', `/v1/patterns/${p.id}`)).status, 404);
  const bShared = await h.call(b.owner, 'GET', '/v1/patterns?scope=own');
  t.same(bShared.body.items, [], 'scope own: B has none');

  // B's own ticket with the same error matches A's pattern.
  const bTicket = await ticketWithError(b.owner, b.ws.id, {
    close: false,
    subject: 'Checkout total missing',
    order: 99,
  });
  const match = await h.call(b.owner, 'POST', '/v1/patterns/match', { ticket_id: bTicket });
  t.equal(match.status, 200, match.payload);
  t.equal(match.body.ticket_id, bTicket);
  t.equal(match.body.items[0]?.pattern?.id, p.id, "A's shared pattern ranks first");
  t.equal(match.body.items[0]?.score, 0.95);
  t.same(match.body.items[0]?.reasons, ['same_signature']);
  t.notOk(
    match.body.items.some((x) => x.pattern?.id === priv.body.id),
    'private patterns of others never match',
  );

  // The fixes plugin's hook: a diagnosis job of B's ticket is told about the shared fix.
  const { JobPayloads } = await import('../../fixes/services/job-payload.js');
  const { fixesOptionsSchema } = await import('../../fixes/options.js');
  const payloads = new JobPayloads({
    db: h.app.db,
    tickets: h.app.container.resolve('ticketService'),
    workspaces: h.app.container.resolve('workspaceService'),
    codeIndex: null,
    codeHost: null,
    repositories: null,
    options: fixesOptionsSchema.validate({}).value as FixesOptions,
    patternMatcher: h.app.container.resolve('patternMatcher'),
  });
  const job = {
    id: 'job_hook',
    kind: 'diagnose',
    org_id: b.owner.organization.id,
    workspace_id: b.ws.id,
    ticket_id: bTicket,
    payload: {},
  };
  const built = await payloads.build(job as unknown as Parameters<typeof payloads.build>[0]);
  t.match(
    built.agentJob.instructions,
    /Known fixes of similar problems[\s\S]*score 0\.95\): Checkout totals now wait/,
    'diagnosis sees the learned fix',
  );

  // Within A, the same error group matches best, the pattern of the ticket itself is left out.
  const aMatch = await h.call(a.owner, 'POST', '/v1/patterns/match', { ticket_id: open });
  t.equal(aMatch.status, 200, aMatch.payload);
  t.ok(aMatch.body.items.length >= 2, 'both own patterns');
  t.equal(aMatch.body.items[0].score, 1);
  t.same(aMatch.body.items[0].reasons, ['same_error_group']);
  const selfMatch = await h.call(a.owner, 'POST', '/v1/patterns/match', { ticket_id: resolved });
  t.notOk(
    selfMatch.body.items.some((x) => x.pattern?.id === p.id),
    'a ticket does not match its own pattern',
  );
  const hook = h.app.container.resolve<{
    matchTicket(orgId: string, ticketId: string, limit?: number): Promise<Array<{ score: number }>>;
  }>('patternMatcher');
  t.equal(
    (await hook.matchTicket(a.owner.organization.id, open, 1)).length,
    1,
    'the diagnosis hook answers the same ranking',
  );

  // C (not opted in) sees only its own; A's shared pattern is 404 and never matches.
  const cList = await h.call(c.owner, 'GET', '/v1/patterns');
  t.same(cList.body.items, [], 'a non-opted-in organization sees only its own');
  t.equal((await h.call(c.owner, 'GET', `/v1/patterns/${p.id}`)).status, 404);
  const cTicket = await ticketWithError(c.owner, c.ws.id, { close: true, subject: 'Checkout total missing', order: 5 });
  t.same((await h.call(c.owner, 'POST', '/v1/patterns/match', { ticket_id: cTicket })).body.items, []);
  const cShare = await h.call(c.owner, 'POST', '/v1/patterns', { ticket_id: cTicket, shared: true });
  t.equal(cShare.status, 409);
  t.equal(cShare.body.code, 'patterns_opt_in_required');
  const cOwn = await h.call(c.owner, 'POST', '/v1/patterns', { ticket_id: cTicket });
  t.equal(cOwn.status, 201);
  t.equal(cOwn.body.shared, false, 'not opted in: private');
  t.equal((await h.call(b.owner, 'GET', `/v1/patterns/${cOwn.body.id}`)).status, 404);
  t.equal(
    (await h.call(a.owner, 'POST', '/v1/patterns/match', { ticket_id: cTicket })).status,
    404,
    "another organization's ticket is 404",
  );

  // A opts out: its patterns stop being shared at once.
  await h.call(a.owner, 'PATCH', '/v1/orgs/current', { patterns_opt_in: false });
  t.equal((await h.call(b.owner, 'GET', `/v1/patterns/${p.id}`)).status, 404, 'opting out withdraws shared patterns');
  await h.call(a.owner, 'PATCH', '/v1/orgs/current', { patterns_opt_in: true });
});

t.test('patterns: update masks again, roles, delete and audit', async (t) => {
  const a = await tenant('Update Works', true);
  const ticket = await ticketWithError(a.owner, a.ws.id, {
    close: true,
    subject: 'Cart total fails',
    order: 3,
    customer: { email: 'mario.rossi@example.it', name: 'Mario Rossi' },
  });
  const created = await h.call(a.owner, 'POST', '/v1/patterns', { ticket_id: ticket });
  t.equal(created.status, 201, created.payload);
  const id = created.body.id;

  const patched = await h.call(a.owner, 'PATCH', `/v1/patterns/${id}`, {
    title: 'Totale per Mario Rossi',
    fix_summary: 'Ask mario.rossi@example.it; token=abcd1234efgh',
    keywords: ['Checkout', 'total'],
    shared: false,
  });
  t.equal(patched.status, 200, patched.payload);
  t.equal(patched.body.title, 'Totale per <customer>');
  t.notOk(patched.payload.includes('mario') || patched.payload.includes('abcd1234efgh'), 'masked again');
  t.same(patched.body.problem.keywords, ['checkout', 'total']);
  t.equal(patched.body.shared, false);
  t.equal((await h.call(a.owner, 'PATCH', `/v1/patterns/${id}`, {})).status, 400, 'an empty patch is invalid');

  const reviewer = await h.member(a.owner, 'reviewer', [a.ws.id]);
  t.equal((await h.call(reviewer, 'GET', `/v1/patterns/${id}`)).status, 200, 'reviewers read');
  t.equal((await h.call(reviewer, 'DELETE', `/v1/patterns/${id}`)).status, 403, 'only owners and admins delete');
  const viewer = await h.member(a.owner, 'client_viewer', [a.ws.id]);
  t.equal((await h.call(viewer, 'GET', '/v1/patterns')).status, 403, 'client viewers do not use patterns');

  const page1 = await h.call(a.owner, 'GET', '/v1/patterns?scope=own&limit=1');
  t.equal(page1.body.items.length, 1);
  t.equal(page1.body.next_cursor, null);
  t.equal((await h.call(a.owner, 'GET', `/v1/patterns?q=${encodeURIComponent('Totale')}`)).body.items.length, 1);

  const del = await h.call(a.owner, 'DELETE', `/v1/patterns/${id}`);
  t.same(del.body, { ok: true });
  t.equal((await h.call(a.owner, 'GET', `/v1/patterns/${id}`)).status, 404);
  const audits = (await h.app
    .db('audit_entries')
    .where({ org_id: a.owner.organization.id })
    .whereLike('action', 'pattern.%')
    .pluck('action')) as string[];
  t.same([...audits].sort(), ['pattern.created', 'pattern.deleted', 'pattern.updated']);
  t.notOk(
    JSON.stringify(
      await h.app.db('audit_entries').where({ org_id: a.owner.organization.id }).whereLike('action', 'pattern.%'),
    ).includes('mario.rossi'),
    'no customer data in the audit log',
  );
});

t.test('the OpenAPI document lists the patterns and error-tracker webhook operations and stays valid', async (t) => {
  const res = await h.app.server.inject({ method: 'GET', url: '/v1/openapi.json' });
  const doc = JSON.parse(res.payload) as {
    paths: Record<string, Record<string, { operationId: string; tags: string[] }> | undefined>;
  };
  const ops: Record<string, [string, string, string]> = {
    listPatterns: ['get', '/v1/patterns', 'patterns'],
    getPattern: ['get', '/v1/patterns/{id}', 'patterns'],
    createPattern: ['post', '/v1/patterns', 'patterns'],
    updatePattern: ['patch', '/v1/patterns/{id}', 'patterns'],
    deletePattern: ['delete', '/v1/patterns/{id}', 'patterns'],
    matchPatterns: ['post', '/v1/patterns/match', 'patterns'],
    errorTrackerWebhook: ['post', '/v1/webhooks/error-tracker/{connectorId}', 'error-tracker webhook'],
  };
  for (const [id, [method, path, tag]] of Object.entries(ops)) {
    const op = doc.paths[path]?.[method];
    t.equal(op?.operationId, id, `${method.toUpperCase()} ${path}`);
    t.same(op?.tags, [tag], `${id} is tagged ${tag}`);
  }
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const result = await new Validator().validate(doc);
  t.ok(result.valid, JSON.stringify(result.errors ?? '').slice(0, 500));
});
