import t from 'tap';
import { browserStack, startProactive, type ProactiveHarness } from './helpers.js';

// One service for the whole file (each scenario signs up its own organization).
let h: ProactiveHarness;
t.before(async () => {
  h = await startProactive(t);
});

t.test('proactive tickets: refusals, the monthly cap holds the group, opening and joining', async (t) => {
  const owner = await h.owner();
  const ws = await h.workspace(owner, { proactive_monthly_fix_cap: 1, notify_affected_users: true });
  const c = await h.endpoint(owner, ws.id);
  const send = (msg: string, extra: Record<string, unknown> = {}) =>
    h.ingest(c.id, c.token, {
      type: 'Error',
      message: msg,
      stack: browserStack(msg.replace(/\W/g, ''), 'app.js', 1),
      ...extra,
    });
  const g1 = (await send('first failure', { user: { id: 'u1', email: 'ann@example.com' } })).body.group_ids[0];
  const g2 = (await send('second failure')).body.group_ids[0];

  const noRepo = await h.call(owner, 'POST', `/v1/error-groups/${g1}/ticket`);
  t.equal(noRepo.status, 422, noRepo.payload);
  t.equal(noRepo.body.code, 'no_repository');
  await h.repository(owner.organization.id, ws.id);

  const noPlan = await h.call(owner, 'POST', `/v1/error-groups/${g1}/ticket`);
  t.equal(noPlan.status, 402, noPlan.payload);
  t.equal(noPlan.body.code, 'plan_limit_reached');
  t.equal(noPlan.body.details?.reason, 'plan_feature');
  await h.setPlan(owner.organization.id, 'startup');

  const opened = await h.call(owner, 'POST', `/v1/error-groups/${g1}/ticket`);
  t.equal(opened.status, 201, opened.payload);
  t.equal(opened.body.outcome, 'opened');
  t.equal(opened.body.detail.group?.status, 'ticketed');
  t.equal(opened.body.detail.group?.ticket?.origin, 'proactive');
  const ticket = (await h.app.db('tickets').where({ id: opened.body.ticket_id }).first()) as {
    id: string;
    error_group_id: string;
    origin: string;
  };
  t.equal(ticket.error_group_id, g1);
  t.equal(ticket.origin, 'proactive');
  const subs = (await h.app.db('ticket_subscribers').where({ ticket_id: ticket.id })) as Array<{
    email: string;
    source: string;
  }>;
  t.same(
    subs.map((s) => [s.email, s.source]),
    [['ann@example.com', 'proactive']],
    'affected users are subscribed',
  );

  const notWatching = await h.call(owner, 'POST', `/v1/error-groups/${g1}/ticket`);
  t.equal(notWatching.status, 409);
  t.equal(notWatching.body.code, 'group_not_watching');
  const openTicket = await h.call(owner, 'POST', `/v1/error-groups/${g1}/ignore`);
  t.equal(openTicket.status, 409);
  t.equal(openTicket.body.code, 'group_has_open_ticket');

  const capped = await h.call(owner, 'POST', `/v1/error-groups/${g2}/ticket`);
  t.equal(capped.status, 402, capped.payload);
  t.equal(capped.body.details?.reason, 'proactive_cap_reached');
  const held = await h.call(owner, 'GET', `/v1/error-groups/${g2}`);
  t.equal(held.body.group?.status, 'watching', 'the group stays watching');
  t.equal(held.body.group?.held_reason, 'proactive_cap_reached');
  t.ok(held.body.group?.held_at);
  const overview = (await h.errorGroups(owner, ws.id)).overview;
  t.equal(overview.fixes_this_month, 1);
  t.equal(overview.cap_reached, true);
  t.equal(overview.counts.held, 1);
  t.equal(overview.pending_tickets, 1);

  // A second group whose problem the open ticket already reports joins it.
  await h.app.db('tickets').where({ id: ticket.id }).update({ error_group_id: g2 });
  const linked = await h.call(owner, 'POST', `/v1/error-groups/${g2}/ticket`);
  t.equal(linked.status, 201, linked.payload);
  t.equal(linked.body.outcome, 'linked');
  t.equal(linked.body.ticket_id, ticket.id);
  t.equal(linked.body.detail.group?.held_reason, null, 'no longer held');

  // A client viewer reads but does not act.
  const viewer = await h.member(owner, 'client_viewer', [ws.id]);
  t.equal((await h.call(viewer, 'GET', `/v1/error-groups/${g1}`)).status, 200);
  t.equal((await h.call(viewer, 'POST', `/v1/error-groups/${g1}/resolve`, {})).status, 403);
});

t.test('triggers: enough affected users or a critical path open a proactive ticket on their own', async (t) => {
  const owner = await h.owner();
  await h.setPlan(owner.organization.id, 'startup');
  const ws = await h.workspace(owner, {
    proactive_enabled: true,
    proactive_threshold_users: 2,
    critical_paths: ['/checkout'],
    proactive_monthly_fix_cap: 5,
  });
  await h.repository(owner.organization.id, ws.id);
  const c = await h.endpoint(owner, ws.id);

  const one = await h.ingest(c.id, c.token, {
    message: 'search index stale',
    stack: browserStack('search', 'search.js', 3),
    user: { id: 'a' },
  });
  const gid = one.body.group_ids[0];
  await h.settle();
  t.equal(
    (await h.call(owner, 'GET', `/v1/error-groups/${gid}`)).body.group?.status,
    'watching',
    'one user is below the threshold',
  );
  await h.ingest(c.id, c.token, {
    message: 'search index stale',
    stack: browserStack('search', 'search.js', 3),
    user: { id: 'b' },
  });
  await h.settle();
  const after = await h.call(owner, 'GET', `/v1/error-groups/${gid}`);
  t.equal(after.body.group?.trigger, 'user_threshold');
  t.equal(after.body.group?.status, 'ticketed', 'the threshold opened a ticket');

  const crit = await h.ingest(c.id, c.token, {
    message: 'pay button dead',
    url: 'https://shop.example.com/checkout/pay',
    stack: browserStack('pay', 'pay.js', 3),
  });
  await h.settle();
  const cg = await h.call(owner, 'GET', `/v1/error-groups/${crit.body.group_ids[0]}`);
  t.equal(cg.body.group?.critical_path_hit, true);
  t.equal(cg.body.group?.trigger, 'critical_path');
  t.equal(cg.body.group?.status, 'ticketed');

  const noise = await h.ingest(c.id, c.token, {
    message: 'ResizeObserver loop limit exceeded',
    url: 'https://shop.example.com/checkout',
    user: { id: 'z' },
  });
  await h.settle();
  const ng = await h.call(owner, 'GET', `/v1/error-groups/${noise.body.group_ids[0]}`);
  t.equal(ng.body.group?.noise, true);
  t.equal(ng.body.group?.status, 'watching', 'noise never opens a ticket');
});
