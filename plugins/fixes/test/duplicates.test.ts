import t from 'tap';
import type { App } from '../../../core/kernel/app.js';
import {
  call,
  receiveEmail,
  waitFor,
  type AttemptRow,
  type DiagnosisRow,
  type DraftRow,
  type MailRow,
  type SubscriberRow,
  type TicketRow,
} from './helpers.js';
import { BUG_REPORT } from './fixtures/cart.js';
import { TAX_REPORT, releaseShop, startReleases } from './fixtures/releases.js';

/** What a public status page shows: its public state and its release line. */
async function statusPage(app: App, url: string): Promise<{ state: string | undefined; release: string | undefined }> {
  const res = await app.server.inject({ method: 'GET', url: new URL(url).pathname });
  return {
    state: /data-state="([a-z_]+)" data-testid="public-state"/.exec(res.payload)?.[1],
    release: /data-testid="release">([^<]*)</.exec(res.payload)?.[1],
  };
}

t.test(
  'duplicates: a second report is offered as a duplicate instead of a second fix; closing one stops its fix; every customer hears of their own report',
  async (t) => {
    const { app, db } = await startReleases(t);
    const { owner, ws, host, ref, verified } = await releaseShop(app, { release_strategy: 'semver' });

    // Ada reports the cart defect, Dora the tax one: each gets a fix and its pull request.
    const cart = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    const tax = await receiveEmail(app, ws.inbound_address, { ...TAX_REPORT, from: 'Dora Dee <dora.dee@example.com>' });
    const [cartFix, taxFix] = await Promise.all([verified(cart), verified(tax)]);

    // Bob writes about the cart defect again: offered as a duplicate of Ada's, no second fix.
    const bob = await receiveEmail(app, ws.inbound_address, {
      subject: 'Checkout ignores my quantities',
      body: 'cartTotal counts one of each item: the quantity is ignored at checkout.',
      from: 'Bob Byte <bob.byte@example.com>',
    });
    const dx = await waitFor(
      async () => (await db('fix_diagnoses').where({ ticket_id: bob }).first()) as DiagnosisRow | undefined,
      "Bob's diagnosis",
    );
    t.match(
      dx,
      { category: 'bug', outcome: 'escalated', duplicate_of_ticket_id: cart },
      'the diagnosis names the likely original',
    );
    const bobTicket = await waitFor(async () => {
      const tk = (await db('tickets').where({ id: bob }).first()) as TicketRow;
      return tk.state === 'escalated' ? tk : null;
    }, "Bob's ticket with the team");
    t.match(
      bobTicket.escalation_reason,
      new RegExp(`Likely a duplicate of ticket ${cart}`),
      'the team is told which ticket it duplicates',
    );
    t.match(
      (await call(app, owner, 'GET', `/v1/tickets/${bob}`)).body.diagnosis,
      { category: 'bug', outcome: 'escalated', duplicate_of_ticket_id: cart },
      'the ticket page offers the original',
    );
    t.equal((await db('fix_attempts').where({ ticket_id: bob })).length, 0, 'no second fix');
    t.equal((await db('fix_jobs').where({ ticket_id: bob, kind: 'fix' })).length, 0, 'no fix job either');

    // The team closes Bob's as a duplicate: his status page follows Ada's ticket, not resolved.
    const bobStatus = (await call(app, owner, 'GET', `/v1/tickets/${bob}`)).body.public_status_url;
    const closed = await call(app, owner, 'POST', `/v1/tickets/${bob}/close`, {
      reason: 'duplicate',
      duplicate_of_ticket_id: cart,
    });
    t.equal(closed.status, 200, closed.payload);
    t.same(
      await statusPage(app, bobStatus),
      { state: 'fix_in_progress', release: undefined },
      "the duplicate's page shows the original's state",
    );

    // Dora's is closed as a duplicate too (the team's call): her fix attempt and pull request are closed.
    t.equal(
      (
        await call(app, owner, 'POST', `/v1/tickets/${tax}/close`, {
          reason: 'duplicate',
          duplicate_of_ticket_id: cart,
        })
      ).status,
      200,
    );
    const superseded = await waitFor(async () => {
      const a = (await db('fix_attempts').where({ id: taxFix.id }).first()) as AttemptRow;
      return a.status === 'superseded' && a.pr_state === 'closed' ? a : null;
    }, "Dora's fix attempt closed");
    t.ok(superseded, 'her attempt is superseded');
    t.match(
      await host.getPullRequest(ref, taxFix.pr_number),
      { state: 'closed' },
      'her pull request is closed on the code host',
    );
    t.match(await db('audit_entries').where({ action: 'fix.closed_with_ticket', target_id: taxFix.id }), [
      { actor_type: 'system' },
    ]);
    t.same(
      (await call(app, owner, 'GET', '/v1/approvals')).body.items.map((i) => i.fix_attempt_id),
      [cartFix.id],
      "only Ada's fix waits for approval",
    );

    // Grace follows Ada's ticket (added by the team).
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${cart}/subscribers`, { email: 'grace.hopper@example.com' })).status,
      201,
    );
    const subs = (await db('ticket_subscribers').where({ ticket_id: cart }).orderBy('created_at')) as SubscriberRow[];
    t.same(
      subs.map((s) => [s.email, s.source, s.thread_ticket_id]),
      [
        ['bob.byte@example.com', 'duplicate', bob],
        ['dora.dee@example.com', 'duplicate', tax],
        ['grace.hopper@example.com', 'status_page', null],
      ],
    );

    const ok = await call(app, owner, 'POST', `/v1/tickets/${cart}/approve`, {
      fix_attempt_id: cartFix.id,
      approved_sha: cartFix.head_sha,
      public_summary: 'The cart total now counts quantities.',
    });
    t.equal(ok.status, 200, ok.payload);
    await waitFor(
      async () => ((await db('tickets').where({ id: cart }).first()) as TicketRow).state === 'customer_notified',
      'the release and its notices',
      30_000,
    );

    // Each customer hears of their own report: their subject, their status page; a follower of nobody's.
    const mails = (await db('mail_messages')
      .whereIn('template', ['fixes.release_notice', 'fixes.release_notice_subscriber'])
      .orderBy('to_address')) as MailRow[];
    t.same(
      mails.map((m) => [m.to_address, m.template, m.ticket_ref, m.subject]),
      [
        ['ada.lovelace@example.com', 'fixes.release_notice', cart, 'Fixed: Cart total is wrong'],
        ['bob.byte@example.com', 'fixes.release_notice', bob, 'Fixed: Checkout ignores my quantities'],
        ['dora.dee@example.com', 'fixes.release_notice', tax, 'Fixed: Tax total is wrong'],
        ['grace.hopper@example.com', 'fixes.release_notice_subscriber', cart, 'Fixed in Shop 0.1.0'],
      ],
    );
    const subjects = ['Cart total is wrong', 'Checkout ignores my quantities', 'Tax total is wrong'];
    for (const m of mails) {
      const own = m.template === 'fixes.release_notice' ? m.subject.replace(/^Fixed: /, '') : null;
      t.same(
        subjects.filter((s) => s !== own && m.text.includes(s)),
        [],
        `${m.to_address}'s notice quotes no other customer's subject`,
      );
      t.match(m.text, /\/unsubscribe\/v1\./, `${m.to_address}'s notice carries an unsubscribe link`);
      t.ok(m.headers['List-Unsubscribe'], 'and the List-Unsubscribe header');
    }
    const bobMail = mails.find((m) => m.to_address === 'bob.byte@example.com')!;
    t.match(bobMail.text, bobStatus, 'Bob is sent to his own status page');
    t.match(bobMail.text, /The cart total now counts quantities\./, "with the original's approved summary");

    // The notices are release_notice drafts of each customer's own ticket; the duplicates are resolved with the version.
    const drafts = (await db('ticket_drafts').where({ kind: 'release_notice' }).orderBy('ticket_id')) as DraftRow[];
    t.same(
      drafts.map((d) => [d.ticket_id, d.status]).sort(),
      [
        [bob, 'sent'],
        [cart, 'sent'],
        [tax, 'sent'],
      ].sort(),
    );
    t.match(await db('tickets').where({ id: bob }).first(), { state: 'closed', resolved_version: '0.1.0' });
    t.match(
      await statusPage(app, bobStatus),
      { state: 'resolved', release: /^The fix was released in version 0\.1\.0 on / },
      'now resolved, with the release',
    );
    t.ok(
      ((await db('ticket_subscribers').where({ ticket_id: cart })) as SubscriberRow[]).every((s) => s.notified_at),
      'every subscriber is marked notified',
    );

    // Bob stops his emails from the link: his subscription to Ada's ticket ends.
    const link = new URL(/https?:\/\/\S+\/unsubscribe\/\S+/.exec(bobMail.text)![0]);
    t.equal((await app.server.inject({ method: 'POST', url: link.pathname })).statusCode, 200);
    t.ok(
      (
        (await db('ticket_subscribers')
          .where({ ticket_id: cart, email: 'bob.byte@example.com' })
          .first()) as SubscriberRow
      ).unsubscribed_at,
      'unsubscribed_at is set',
    );
    t.equal(
      (await db('ticket_subscribers').where({ ticket_id: cart }).whereNotNull('unsubscribed_at')).length,
      1,
      'only his',
    );
    t.equal(
      (await app.server.inject({ method: 'GET', url: '/unsubscribe/v1.k1.forged.token.x' })).statusCode,
      404,
      'a forged link is no page',
    );
  },
);
