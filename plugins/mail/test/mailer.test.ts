import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { NOTICE, mailIn, mailRow, services, sleep } from './helpers.js';

t.test('a support notice is enqueued with a ticket change and leaves once', async (t) => {
  // One app for every case (apps are slow to open). PGlite runs with dataDir :memory:, so the
  // outbox keeps messages in memory; on Postgres the test dataDir is real and .eml files are written.
  const app = await startTestApp(t, { server: { publicBaseUrl: 'https://support.example.test' } });
  const { mailer, outbox, db } = services(app);
  const memory = app.config.dataDir === ':memory:';
  t.equal(outbox.dir, memory ? null : join(app.config.dataDir, 'outbox'), 'the outbox directory follows dataDir');
  if (outbox.dir) t.teardown(() => rmSync(outbox.dir!, { recursive: true, force: true }));
  mailer.registerTemplates([NOTICE]);
  const data = { name: 'Ada', ticket: 'T-42', link: 'https://support.example.test/t/42?x=1&y=2' };

  await t.test('a rolled-back transaction sends nothing and stores nothing', async (t) => {
    let mailId = '';
    await t.rejects(
      db.transaction(async (trx) => {
        mailId = await mailer.enqueue(trx, {
          orgId: 'org_a',
          template: NOTICE.name,
          locale: 'en',
          to: 'ada@example.test',
          data,
        });
        throw new Error('the ticket change failed');
      }),
      { message: 'the ticket change failed' },
    );
    await app.relay.runOnce();
    await sleep(200);
    t.equal(outbox.messages.length, 0, 'nothing sent');
    t.equal(await mailRow(db, mailId), undefined, 'no row');
    t.equal((await db('outbox').where({ type: 'mail.requested' })).length, 0, 'no event');
  });

  await t.test('a committed one is sent once, and the row and the .eml say the same', async (t) => {
    const mailId = await db.transaction((trx) =>
      mailer.enqueue(trx, {
        orgId: 'org_a',
        template: NOTICE.name,
        locale: 'it',
        to: ['ada@example.test', 'bob@example.test'],
        data,
        from: { address: 'help@example.test', name: 'Example Help' },
        replyTo: { address: 'reply+t42@example.test', name: 'Ticket T-42' },
        headers: { 'In-Reply-To': '<c1@customer.test>', References: '<c0@customer.test> <c1@customer.test>' },
        ticketRef: 'tkt_42',
      }),
    );
    t.match(mailId, /^mail_[0-9a-z]{26}$/);
    const sent = await outbox.waitFor((e) => e.to.includes('ada@example.test'));
    const row = await mailIn(db, mailId, 'sent', 'row sent');

    t.equal(row.org_id, 'org_a');
    t.equal(row.template, 'test.notice');
    t.equal(row.locale, 'it');
    t.equal(row.to_address, 'ada@example.test, bob@example.test');
    t.equal(row.from_address, 'help@example.test');
    t.equal(row.from_name, 'Example Help');
    t.equal(row.ticket_ref, 'tkt_42');
    t.equal(row.attempts, 1);
    t.equal(row.message_id, `<${mailId}@support.example.test>`, 'Message-ID on the host of PUBLIC_BASE_URL');
    t.equal(row.provider_message_id, sent.providerMessageId);
    t.ok(row.sent_at instanceof Date, 'sent_at');
    t.equal(row.subject, 'Il tuo ticket T-42 è stato aggiornato');
    t.same(row.headers, {
      'Auto-Submitted': 'auto-generated',
      'In-Reply-To': '<c1@customer.test>',
      References: '<c0@customer.test> <c1@customer.test>',
    });

    if (memory) t.equal(sent.path, null, 'dataDir :memory:: nothing written');
    else t.ok(sent.path?.startsWith(outbox.dir!), `written under <dataDir>/outbox: ${sent.path}`);
    const eml = sent.path ? readFileSync(sent.path) : sent.raw;
    t.ok(eml.equals(sent.raw), 'the file holds the message');
    t.same(sent.links, ['https://support.example.test/t/42?x=1&y=2'], 'links are listed (and logged)');
    const parsed = await simpleParser(eml);
    t.equal(parsed.subject, row.subject, 'subject');
    t.equal(parsed.messageId, row.message_id, 'Message-ID');
    t.equal(parsed.inReplyTo, '<c1@customer.test>', 'In-Reply-To');
    t.same(parsed.references, ['<c0@customer.test>', '<c1@customer.test>'], 'References');
    t.equal(parsed.headers.get('auto-submitted'), 'auto-generated', 'Auto-Submitted');
    t.equal(parsed.from?.value[0]?.address, 'help@example.test');
    t.equal(parsed.from?.value[0]?.name, 'Example Help');
    t.same(
      (Array.isArray(parsed.to) ? parsed.to : [parsed.to]).flatMap((a) => a!.value.map((v) => v.address)),
      ['ada@example.test', 'bob@example.test'],
    );
    t.equal(parsed.replyTo?.value[0]?.address, 'reply+t42@example.test');
    t.equal(parsed.text?.trimEnd(), row.text.trimEnd(), 'text part is the stored text');
    t.equal(parsed.html, row.html, 'HTML part is the stored HTML');
    t.match(row.html, /<a href="https:\/\/support\.example\.test\/t\/42\?x=1&amp;y=2">/, 'the link is clickable');

    // The same event again (a broker redelivery): the mail is not sent twice.
    const [event] = await db<{ id: string; type: string }>('outbox')
      .where({ type: 'mail.requested' })
      .orderBy('id', 'desc')
      .limit(1);
    await app.bus.publish({
      id: `${event.id}-again`,
      type: 'mail.requested',
      orgId: 'org_a',
      occurredAt: new Date().toISOString(),
      payload: { mail_id: mailId },
    });
    await sleep(300);
    t.equal(outbox.sentTo('ada@example.test').length, 1, 'sent once');
    t.equal((await mailRow(db, mailId))?.attempts, 1, 'no second attempt');
    if (!memory) t.equal(readdirSync(outbox.dir!).filter((f) => f.endsWith('.eml')).length, 1, 'one .eml');
  });

  await t.test('bad input is refused before anything is written', async (t) => {
    const good = { orgId: null, template: NOTICE.name, locale: 'en' as const, to: 'a@example.test', data };
    const cases: Array<
      [Partial<Parameters<typeof mailer.enqueue>[1]>, { name: string; message?: RegExp } | { message: RegExp }]
    > = [
      [{ template: 'test.unknown' }, { name: 'MailTemplateError', message: /not registered/ }],
      [{ to: 'not an address' }, { name: 'MailInputError' }],
      [{ locale: 'fr' as 'en' }, { name: 'MailInputError', message: /locale/ }],
      [{ data: { name: 'A' } }, { name: 'MailTemplateError', message: /\{\{ticket\}\}/ }],
      [{ headers: { Subject: 'x' } }, { message: /header Subject/ }],
      [{ headers: { 'X-A': 'a\r\nBcc: b@x.test' } }, { name: 'MailInputError' }],
    ];
    await db.transaction(async (trx) => {
      for (const [change, error] of cases) await t.rejects(mailer.enqueue(trx, { ...good, ...change }), error);
      t.equal((await trx('mail_messages').where('template', NOTICE.name).whereNull('org_id')).length, 0, 'no row');
    });
  });

  await t.test('a caller may give the Message-ID and override Auto-Submitted', async (t) => {
    const mailId = await db.transaction((trx) =>
      mailer.enqueue(trx, {
        orgId: null,
        template: NOTICE.name,
        locale: 'en',
        to: 'carla@example.test',
        data,
        messageId: 'reply-1@tickets.example.test',
        headers: { 'auto-submitted': 'no' },
      }),
    );
    const sent = await outbox.waitFor((e) => e.to.includes('carla@example.test'));
    t.equal(sent.messageId, '<reply-1@tickets.example.test>');
    const parsed = await simpleParser(sent.raw);
    t.equal(parsed.messageId, '<reply-1@tickets.example.test>');
    t.equal(parsed.headers.get('auto-submitted'), 'no');
    t.match(
      sent.raw.toString(),
      /\r\nFrom: Patchwell <no-reply@support\.example\.test>\r\n/,
      'default sender on the host of PUBLIC_BASE_URL',
    );
    t.same((await mailRow(db, mailId))?.headers, { 'auto-submitted': 'no' });
  });

  t.test('templates: the same one again is fine, another under a taken name is not', (t) => {
    mailer.registerTemplates([NOTICE]);
    t.throws(() => mailer.registerTemplates([{ ...NOTICE, subject: { en: 'x', it: 'y' } }]), {
      name: 'MailTemplateError',
    });
    t.ok(mailer.templateNames().includes('test.notice'));
    t.equal(mailer.render(NOTICE.name, 'en', data).subject, 'Your ticket T-42 was updated');
    t.end();
  });
});
