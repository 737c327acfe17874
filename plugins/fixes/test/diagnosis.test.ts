import t from 'tap';
import type { Knex } from 'knex';
import { signUp } from '../../../test/helpers/accounts.js';
import {
  call,
  connectRepository,
  createWorkspace,
  receiveEmail,
  startFixesApp,
  waitFor,
  type CountRow,
  type DiagnosisRow,
  type DraftRow,
  type JobRow,
} from './helpers.js';

const DOCS = `# Exporting data

## Export invoices to CSV

Open Billing, choose Invoices, then click Export and pick CSV.
The file holds one invoice per row.

## Esportare le fatture in CSV

Apri Fatturazione, scegli Fatture, poi clicca Esporta e scegli CSV.
`;
const CART = `export function cartTotal(items: Array<{ price: number; qty: number }>): number {
  return items.reduce((sum, i) => sum + i.price, 0);
}
`;

t.test('the loop diagnoses every new ticket: drafts grounded in the docs (en/it), autonomy, escalation', async (t) => {
  const app = await startFixesApp(t);
  const db = app.db as Knex;
  const owner = await signUp(app, { orgName: 'Acme' });
  const other = await signUp(app, { orgName: 'Other' });
  const ws = await createWorkspace(app, owner, 'Shop');
  const repo = await connectRepository(app, owner, ws.id, 'shop', {
    'README.md': '# Shop\n',
    'docs/export.md': DOCS,
    'src/cart.ts': CART,
  });

  const settled = (ticketId: string) =>
    waitFor(async () => {
      const row = (await db('fix_jobs').where({ ticket_id: ticketId, kind: 'diagnose' }).first()) as JobRow | undefined;
      if (!row || !['succeeded', 'failed', 'dead', 'cancelled'].includes(row.status)) return null;
      const d = (await db('fix_diagnoses').where({ ticket_id: ticketId }).first()) as DiagnosisRow | undefined;
      return d ? { job: row, diagnosis: d } : null;
    }, 'the diagnosis');
  const ticket = async (id: string) => (await call(app, owner, 'GET', `/v1/tickets/${id}`)).body;
  const drafts = async (id: string) =>
    (await db('ticket_drafts').where({ ticket_id: id }).orderBy('created_at')) as DraftRow[];

  await t.test(
    'copilot/approve: an English usage question gets a reply draft quoting the docs, with references',
    async (t) => {
      const id = await receiveEmail(app, ws.inbound_address, {
        subject: 'Export invoices',
        body: 'How do I export my invoices to CSV?',
      });
      const { job, diagnosis } = await settled(id);
      t.match(job, { status: 'succeeded', executor: 'agent-builtin', mode: 'builtin', attempts: 1 });
      t.match(diagnosis, { category: 'usage', outcome: 'drafted', language: 'en' });
      t.ok(diagnosis.confidence >= 0.5 && diagnosis.confidence <= 1, 'calibrated confidence');
      t.match(diagnosis.references[0], { path: 'docs/export.md' });
      t.match(diagnosis.references[0].url, new RegExp(`${repo.full_name}/blob/main/docs/export\\.md#L\\d+`));
      const tk = await waitFor(
        async () => ((await ticket(id)).state === 'draft_ready' ? ticket(id) : null),
        'draft_ready',
      );
      t.match(tk, { category: 'usage', public_state: 'in_analysis', needs_team_action: true });
      t.ok((tk.latest_confidence ?? 0) > 0.5);
      const [d] = await drafts(id);
      t.match(d, { kind: 'reply', status: 'draft', language: 'en', diagnosis_id: diagnosis.id });
      t.match(d.body_md, /^Hello/);
      t.match(d.body_md, /> .*Export.*CSV/);
      // The passage's link opens the file on the code host, for the customer too (a public repository; issue 25).
      const link = new URL(/https?:\/\/\S+\/blob\/main\/docs\/export\.md#L\d+-L\d+/.exec(d.body_md)![0]);
      const blob = await app.server.inject({ method: 'GET', url: link.pathname });
      t.equal(blob.statusCode, 200, 'the documentation link resolves without a session');
      t.match(blob.payload, /Export/);
      t.equal(
        await db('mail_messages')
          .where({ template: 'tickets.reply' })
          .whereRaw('? = any(to_addresses)', ['ada.lovelace@example.com'])
          .count('* as n')
          .first()
          .then((r) => Number((r as CountRow).n))
          .catch(() => 0),
        0,
        'nothing sent without a click',
      );

      const events = await call(app, owner, 'GET', `/v1/tickets/${id}/jobs/${job.id}/events`);
      t.equal(events.status, 200);
      t.ok(
        events.body.items.some((e) => e.type === 'classification'),
        'the job log',
      );
      t.equal(
        (await call(app, other, 'GET', `/v1/tickets/${id}/jobs/${job.id}/events`)).status,
        404,
        'another organization: 404',
      );
    },
  );

  await t.test('an Italian workspace: the draft is in Italian', async (t) => {
    t.equal((await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, { locale: 'it' })).status, 200);
    const id = await receiveEmail(app, ws.inbound_address, {
      subject: 'Fatture',
      body: 'Come faccio a esportare le fatture in CSV?',
    });
    const { diagnosis } = await settled(id);
    t.match(diagnosis, { category: 'usage', outcome: 'drafted', language: 'it' });
    const [d] = await waitFor(async () => ((await drafts(id)).length ? drafts(id) : null), 'the draft');
    t.match(d, { kind: 'reply', language: 'it' });
    t.match(d.body_md, /^Buongiorno/);
  });

  await t.test('autopilot: a category of autopilot_categories above the threshold is sent by itself', async (t) => {
    const upd = await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, {
      autonomy: 'autopilot',
      autopilot_categories: ['usage'],
      confidence_threshold: 0.5,
    });
    t.equal(upd.status, 200, JSON.stringify(upd.body));
    const id = await receiveEmail(app, ws.inbound_address, {
      subject: 'CSV',
      body: 'Come posso esportare le fatture in CSV?',
    });
    const { diagnosis } = await settled(id);
    t.equal(diagnosis.outcome, 'autopilot');
    const tk = await waitFor(
      async () => ((await ticket(id)).state === 'answered' ? ticket(id) : null),
      'answered by autopilot',
    );
    t.equal(tk.public_state, 'answered');
    const out = tk.messages.filter((m) => m.direction === 'out');
    t.equal(out.length, 1, 'one reply');
    t.match(out[0].body_text, /^Buongiorno/);
    const [d] = await drafts(id);
    t.match(d, { status: 'sent', approved_by_user_id: null });
    const audit = (await db('audit_entries').where({ action: 'ticket.draft_sent', target_id: d.id }).first()) as
      { actor_type: string } | undefined;
    t.match(audit, { actor_type: 'job' }, 'sent by the job, audited as such');

    // A bug is not in autopilot_categories: no draft goes out; the team gets it.
    const bug = await receiveEmail(app, ws.inbound_address, {
      subject: 'Totale sbagliato',
      body: 'Il totale del carrello è sbagliato: cartTotal ignora la quantità. Errore 500.',
    });
    const b = await settled(bug);
    t.match(b.diagnosis, { category: 'bug', outcome: 'escalated' });
    t.match(b.diagnosis.references, [{ path: 'src/cart.ts' }]);
    t.match(b.diagnosis.root_cause_md, /src\/cart\.ts/);
    const bt = await waitFor(async () => ((await ticket(bug)).state === 'escalated' ? ticket(bug) : null), 'escalated');
    t.equal(bt.public_state, 'team_review');
  });

  await t.test('a question the documentation does not answer is escalated to the team, who are emailed', async (t) => {
    const before = Number(
      ((await db('mail_messages').where({ template: 'tickets.escalated' }).count('* as n').first()) as CountRow).n,
    );
    const id = await receiveEmail(app, ws.inbound_address, {
      subject: 'Utenti',
      body: 'Come aggiungo un secondo utente al mio account?',
    });
    const { diagnosis } = await settled(id);
    t.match(diagnosis, { outcome: 'escalated' });
    t.same(await drafts(id), [], 'no draft');
    const tk = await waitFor(async () => ((await ticket(id)).state === 'escalated' ? ticket(id) : null), 'escalated');
    t.equal(tk.needs_team_action, true);
    const after = Number(
      ((await db('mail_messages').where({ template: 'tickets.escalated' }).count('* as n').first()) as CountRow).n,
    );
    t.ok(after > before, 'the team is emailed');
    t.ok(
      await db('audit_entries').where({ action: 'ticket.escalated', target_id: id, actor_type: 'system' }).first(),
      'audited',
    );
  });
});
