import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import type { PersonalDataRegistry } from '../services/registry.js';
import { emailIn, json, privacyApp, requestErasure, settle, traces, workspace } from './helpers.js';

const ADDRESS = 'mario.rossi@example.com';
const OTHER = 'giulia.bianchi@example.com';

t.test('erasing an end user leaves no trace of the address in any table of the database', async (t) => {
  const app = await privacyApp(t);
  const owner = await signUp(app, { orgName: 'Erasers' });
  const ws = await workspace(app, owner);

  // The person writes twice (once with a capitalised address), is subscribed to a colleague's
  // ticket, and is named in an audit entry; a colleague writes too.
  const first = await emailIn(
    app,
    ws.inbound_address,
    'Mario Rossi <Mario.Rossi@Example.com>',
    `The checkout fails. Reach me at ${ADDRESS} or call.`,
  );
  await emailIn(app, ws.inbound_address, `Mario Rossi <${ADDRESS}>`, 'Still failing, any news?');
  const theirs = await emailIn(app, ws.inbound_address, `Giulia Bianchi <${OTHER}>`, 'Same problem here.');
  const sub = await app.server.inject({
    method: 'POST',
    url: `/v1/tickets/${theirs}/subscribers`,
    payload: { email: ADDRESS },
    ...owner.auth,
  });
  t.equal(sub.statusCode, 201, sub.payload);
  await settle(app);
  const before = await traces(app, ADDRESS);
  t.ok(Object.keys(before).length >= 4, `the address is in many places before: ${Object.keys(before).join(', ')}`);

  // Another organization erasing the same address touches nothing here.
  const stranger = await signUp(app, { orgName: 'Strangers' });
  const foreign = await requestErasure(app, stranger, { email: ADDRESS });
  t.equal(foreign.statusCode, 201);
  t.same(json(foreign).counts, {});
  t.same(await traces(app, ADDRESS), before, 'nothing of another organization changed');

  const reviewer = await addMember(app, owner, { role: 'reviewer' });
  t.equal((await requestErasure(app, reviewer, { email: ADDRESS })).statusCode, 403);
  t.equal((await requestErasure(app, owner, {})).statusCode, 400, 'email or user_id');
  t.equal((await requestErasure(app, owner, { email: 'not an address' })).statusCode, 400);

  const res = await requestErasure(app, owner, { email: 'MARIO.ROSSI@example.com' });
  t.equal(res.statusCode, 201, res.payload);
  const erasure = json<{ id: string; status: string; counts: Record<string, number> }>(res);
  t.equal(erasure.status, 'completed');
  t.ok(erasure.counts.ticket_messages >= 2 && erasure.counts.ticket_subscribers >= 1, JSON.stringify(erasure.counts));

  t.same(await traces(app, ADDRESS), {}, 'no trace of the address in any text, JSON or binary column of any table');
  t.same(await traces(app, 'Mario.Rossi@Example'), {}, 'in any case');
  t.ok(Object.keys(await traces(app, OTHER)).length > 0, 'the colleague is untouched');
  const ticket = (await app.db('tickets').where({ id: first }).first()) as {
    customer_email: string | null;
    subject: string;
  };
  t.equal(ticket.customer_email, null, 'the ticket stays, without its requester');
  const messages = await app
    .db('ticket_messages')
    .where({ ticket_id: first })
    .select<Array<{ body_text: string; from_address: string | null }>>('body_text', 'from_address');
  t.ok(
    messages.every((m) => m.from_address === null && m.body_text === '[erased]'),
    'the person’s messages are emptied',
  );

  const entry = (await app
    .db('audit_entries')
    .where({ org_id: owner.organization.id, action: 'privacy.end_user_erased' })
    .first()) as { target_id: string; metadata: unknown };
  t.equal(entry.target_id, erasure.id, 'audited');
  const record = (await app.db('privacy_erasures').where({ id: erasure.id }).first()) as { subject_hash: string };
  t.match(record.subject_hash, /^[0-9a-f]{64}$/, 'the evidence keeps a hash, not the address');
});

t.test('erasing by widget user id reaches the columns that hold it', async (t) => {
  const app = await privacyApp(t);
  const owner = await signUp(app, { orgName: 'Widgets' });
  const registry = app.container.resolve<PersonalDataRegistry>('personalData');
  // A plugin added later declares its table; erasure finds it without any change here.
  await app.db.schema.createTable('later_reports', (tb) => {
    tb.text('id').primary();
    tb.text('org_id').notNullable();
    tb.text('widget_user_id');
    tb.text('email');
    tb.jsonb('context');
  });
  registry.declare({
    plugin: 'later',
    table: 'later_reports',
    emailColumns: ['email'],
    userIdColumns: ['widget_user_id'],
    onMatch: 'delete',
  });
  await app.db('later_reports').insert([
    {
      id: 'r1',
      org_id: owner.organization.id,
      widget_user_id: 'user-7781-abc',
      email: 'anon@example.net',
      context: JSON.stringify({ url: '/cart' }),
    },
    {
      id: 'r2',
      org_id: owner.organization.id,
      widget_user_id: 'someone-else',
      email: 'x@example.net',
      context: JSON.stringify({ seen: 'user-7781-abc' }),
    },
  ]);
  const res = await requestErasure(app, owner, { user_id: 'user-7781-abc' });
  t.equal(res.statusCode, 201, res.payload);
  t.same(json(res).counts, { later_reports: 2 }, 'one row deleted, one swept');
  t.same(await traces(app, 'user-7781-abc'), {});
  t.equal(((await app.db('later_reports').select('id')) as unknown[]).length, 1);
});
