import t from 'tap';
import { AdapterError, type OutgoingEmail, type SendResult } from '../../../core/contracts/index.js';
import type { MailDelivery } from '../services/delivery.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { NOTICE, mailIn, mailRow, services, sleep, until } from './helpers.js';

const data = { name: 'Ada', ticket: 'T-7', link: 'https://localhost/t/7' };

t.test('mail delivery through the bus', async (t) => {
  // Two attempts per mail, 30 ms apart: enough for every scenario below.
  const app = await startTestApp(t, { plugins: { mail: { options: { maxAttempts: 2, backoffMs: [30] } } } });
  const { mailer, outbox, db } = services(app);
  const delivery = (app.container.cradle as { mailDelivery: MailDelivery }).mailDelivery;
  mailer.registerTemplates([NOTICE]);
  const send = outbox.send.bind(outbox);
  t.afterEach(() => {
    outbox.send = send;
  });
  const enqueue = (to: string, orgId: string | null, locale: 'en' | 'it' = 'en') =>
    db.transaction((trx) => mailer.enqueue(trx, { orgId, template: NOTICE.name, locale, to, data }));
  /** A mail stored without its event reaching the consumer: the outbox row is removed before the relay sees it. */
  const unannounced = (to: string, orgId: string | null) =>
    db.transaction(async (trx) => {
      const id = await mailer.enqueue(trx, { orgId, template: NOTICE.name, locale: 'en', to, data });
      await trx('outbox').where({ type: 'mail.requested' }).whereRaw(`payload->>'mail_id' = ?`, [id]).del();
      return id;
    });

  await t.test('a provider outage: the mail is retried with back-off until it is sent', async (t) => {
    let calls = 0;
    outbox.send = async (m: OutgoingEmail): Promise<SendResult> => {
      calls++;
      if (calls === 1) throw new AdapterError('send_failed', 'connection refused', { retryable: true });
      return send(m);
    };

    const mailId = await enqueue('ada@example.test', 'org_a');
    const row = await mailIn(db, mailId, 'sent', 'the mail sent after a retry');
    t.equal(calls, 2, 'the adapter was called twice');
    t.equal(row.attempts, 2, 'two attempts recorded');
    t.equal(row.last_error, null, 'the error is cleared once sent');
    t.equal(outbox.sentTo('ada@example.test').length, 1, 'one message left');
  });

  await t.test(
    'a provider that keeps failing: after the last attempt the mail is failed and the event dead-lettered',
    async (t) => {
      let calls = 0;
      outbox.send = (): Promise<SendResult> => {
        calls++;
        return Promise.reject(new AdapterError('send_failed', `timeout #${calls}`, { retryable: true }));
      };

      const mailId = await enqueue('ada@example.test', 'org_a');
      const row = await mailIn(db, mailId, 'failed');
      t.equal(row.attempts, 2, 'two attempts');
      t.equal(row.last_error, 'send_failed: timeout #2', 'the last error is kept');
      const dead = await until(async () => {
        const list = (await app.bus.deadLetters('mail.send')).filter(
          (d) => (d.message.payload as { mail_id: string }).mail_id === mailId,
        );
        return list.length > 0 ? list : null;
      }, 'a dead letter');
      t.equal(dead.length, 1, 'the mail.requested event is dead-lettered');
      t.equal(calls, 2, 'no third try');
    },
  );

  await t.test('a refused message fails at once: retrying cannot help', async (t) => {
    let calls = 0;
    outbox.send = (): Promise<SendResult> => {
      calls++;
      return Promise.reject(new AdapterError('send_rejected', '550 5.1.1 mailbox unknown', { retryable: false }));
    };
    const mailId = await enqueue('nobody@example.test', null, 'it');
    const row = await mailIn(db, mailId, 'failed');
    await sleep(200);
    t.equal(calls, 1, 'one try');
    t.equal(row.last_error, 'send_rejected: 550 5.1.1 mailbox unknown');
    t.same(
      (await app.bus.deadLetters('mail.send')).filter(
        (d) => (d.message.payload as { mail_id: string }).mail_id === mailId,
      ),
      [],
      'no dead letter',
    );
  });

  await t.test('two deliveries at once send the mail once; lost deliveries are announced again', async (t) => {
    const mailId = await unannounced('eve@example.test', null);

    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    outbox.send = async (m) => {
      await gate;
      return send(m);
    };
    const first = delivery.deliver(mailId, 1);
    await until(
      async () => ((await mailRow(db, mailId))?.attempts === 1 ? true : null),
      'the first delivery claimed the mail',
    );
    await t.rejects(delivery.deliver(mailId, 1), { name: 'MailBusyError' }, 'the second is told to come back later');
    t.equal(
      await delivery.deliver(mailId, 2),
      'busy',
      'at its last attempt it is left to the lease, not dead-lettered',
    );
    release();
    t.equal(await first, 'sent');
    t.equal(await delivery.deliver(mailId, 2), 'already_sent', 'a late one sends nothing');
    t.equal(await delivery.deliver('mail_unknown', 1), 'missing');
    t.equal(outbox.sentTo('eve@example.test').length, 1, 'sent once');

    // A queued mail nobody touched for a while is announced again and then sent.
    const lost = await unannounced('finn@example.test', 'org_b');
    t.equal(await delivery.requeueStuck(60_000), 0, 'a fresh mail is left alone');
    await db('mail_messages')
      .where({ id: lost })
      .update({ updated_at: db.raw(`now() - interval '1 hour'`) });
    t.equal(await delivery.requeueStuck(60_000), 1, 'the idle mail is announced again');

    // A worker killed mid-send leaves its lease behind: once the lease lapses the mail is announced again at once.
    const held = await unannounced('gus@example.test', 'org_b');
    await db('mail_messages')
      .where({ id: held })
      .update({ attempts: 1, locked_until: db.raw(`now() + interval '1 hour'`) });
    t.equal(await delivery.requeueStuck(60 * 60_000), 0, 'a held mail is left to its holder');
    await db('mail_messages')
      .where({ id: held })
      .update({ locked_until: db.raw(`now() - interval '1 second'`) });
    t.equal(
      await delivery.requeueStuck(60 * 60_000),
      1,
      'a lapsed lease is announced again without waiting for idleMs',
    );
    await outbox.waitFor((e) => e.to.includes('gus@example.test'));
    await outbox.waitFor((e) => e.to.includes('finn@example.test'));
    t.equal((await mailIn(db, lost, 'sent', 'sent')).org_id, 'org_b');
  });

  await t.test('old sent and failed mail is purged; queued mail stays', async (t) => {
    const queued = await unannounced('gil@example.test', null);
    await db('mail_messages').update({ created_at: db.raw(`now() - interval '40 days'`) });
    const before = Number((await db('mail_messages').whereIn('status', ['sent', 'failed']).count({ n: '*' }))[0].n);
    t.ok(before > 0, 'there is old mail');
    t.equal(await delivery.purge(30 * 24 * 3600 * 1000), before, 'every old sent or failed mail');
    t.ok(await mailRow(db, queued), 'the queued one is kept');
  });
});
