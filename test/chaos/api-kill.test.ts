/**
 * Fault suite (issue 31): an api process is killed (SIGKILL) while requests are in flight, under load
 * (error events and inbound emails through both api processes). Clients retry what got no answer with
 * the same Message-ID (emails) or external_id (events) on the other process. Nothing is half written
 * and each retried request counts once: one ticket per email, one stored event per external id.
 * (The API has no ticket creation with an Idempotency-Key: tickets come from emails, the widget and
 * connectors; the email's Message-ID is the client's key.)
 */
import t from 'tap';
import { randomBytes } from 'node:crypto';
import {
  countRows,
  sendEmail,
  servicesSkip,
  setupShop,
  startChaosCluster,
  startLoad,
  withServices,
  type Call,
} from './harness.js';
import { loadInvariants } from './load.js';
import type { Answer } from '../helpers/api-types.js';
import type { CountRow } from '../../plugins/fixes/test/helpers.js';

/** The answer of an inbound email (POST /v1/webhooks/email/mime). */
type MailCall = Call<Answer<'POST', '/v1/webhooks/email/mime'>>;

/** A ticket message (ticket_messages), the columns read. */
interface MessageRow {
  email_message_id: string | null;
  ticket_id: string;
}

const BURST = 24;

/** One email sent as a client does: again with the same Message-ID until an answer below 500 comes. */
async function deliver(
  send: () => Promise<MailCall>,
): Promise<{ answer: MailCall | null; cut: number; errors: string[] }> {
  const errors: string[] = [];
  for (let i = 0; i < 10; i++) {
    try {
      const res = await send();
      if (res.status < 500) return { answer: res, cut: errors.length, errors };
      errors.push(`HTTP ${res.status}`);
    } catch (err) {
      errors.push(String((err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message));
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  return { answer: null, cut: errors.length, errors };
}

void t.test(
  'api-kill: an api process killed mid-request; retries give one ticket each, nothing half written',
  { skip: servicesSkip },
  (t) =>
    withServices(false, async () => {
      const cluster = await startChaosCluster(t, { api: 2, workers: 1 });
      const { db } = cluster;
      const shop = await setupShop(cluster);
      cluster.say('shop ready');
      const load = startLoad(cluster, shop, { everyMs: 100 });
      await new Promise((r) => setTimeout(r, 2000));

      const victim = cluster.procs('api')[0];
      const ids = Array.from(
        { length: BURST },
        (_, i) => `burst-${i}-${randomBytes(5).toString('hex')}@mail.example.com`,
      );
      const burst = ids.map((messageId, i) =>
        deliver(() =>
          sendEmail(cluster, shop.inbound, {
            subject: `Refund for order ${i}`,
            body: `Please refund order ${i}: the parcel arrived damaged.`,
            from: `Buyer ${i} <buyer${i}@example.com>`,
            messageId,
          }),
        ),
      );
      // The burst is on its way to both processes (round robin): one of them dies under it.
      await new Promise((r) => setTimeout(r, 60));
      const end = await cluster.kill(victim);
      cluster.say(`${victim.name} (pid ${victim.pid}) killed (${end.signal}) with ${BURST} emails in flight`);
      const results = await Promise.all(burst);
      const cut = results.filter((r) => r.cut > 0);
      cluster.say(
        `${cut.length} of ${BURST} emails lost their answer and were sent again: ${[...new Set(cut.flatMap((r) => r.errors))].join(', ')}`,
      );
      t.ok(cut.length >= 1, 'the kill cut requests in flight (the scenario hit the process mid-request)');
      t.same(
        results.filter((r) => !r.answer || r.answer.status !== 200).map((r) => r.answer?.status ?? 'no answer'),
        [],
        'every email was answered 200 in the end',
      );
      const outcomes = results.map((r) => r.answer?.body.results?.[0]?.status as string);
      t.ok(
        outcomes.every((o) => o === 'processed' || o === 'ignored'),
        `each email processed, or on a retry found already taken (${JSON.stringify(outcomes.filter((o) => o !== 'processed').length)} duplicates)`,
      );

      // The load goes on through the survivor alone for a while (nothing restarts the killed process).
      await new Promise((r) => setTimeout(r, 3000));
      const report = await load.stop();

      const rows = await db<MessageRow>('ticket_messages')
        .whereIn('email_message_id', [...ids.map((id) => `<${id}>`), ...ids])
        .select<MessageRow[]>('email_message_id', 'ticket_id');
      const perId = new Map<string, MessageRow[]>();
      for (const r of rows)
        perId.set(String(r.email_message_id), [...(perId.get(String(r.email_message_id)) ?? []), r]);
      t.same(
        ids.filter((id) => (perId.get(`<${id}>`) ?? perId.get(id) ?? []).length !== 1),
        [],
        'each burst email is exactly one ticket message',
      );
      const tickets = new Set(rows.map((r) => r.ticket_id));
      t.equal(tickets.size, BURST, 'and exactly one ticket each');
      t.equal(
        Number(
          (
            (await db('tickets')
              .whereIn('id', [...tickets])
              .count('* as n')
              .first()) as CountRow
          ).n,
        ),
        BURST,
        'every one of those tickets exists',
      );
      await loadInvariants(t, cluster, shop, report);
      cluster.say(`rows at the end: ${JSON.stringify(await countRows(db))}`);
    }),
);
