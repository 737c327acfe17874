// Classification of real messages without a service: every bounce and auto-reply of the Sisimai
// corpus (test/fixtures/email/bounces, copied from the shared fixtures), and our own RFC 5322 fixtures for the other reasons.
import { readdirSync } from 'node:fs';
import t from 'tap';
import {
  detectAutoReply,
  detectBounce,
  detectForwardingConfirmation,
  detectMailingList,
  detectOwnMail,
  isForwardingTest,
  isNoReplySender,
} from '../services/classify.js';
import { txtMatches, aggregate } from '../services/dns-check.js';
import { readMessage, normalizeSubject } from '../services/mime.js';
import { hostOf, zoneOf } from '../services/serialize.js';
import { scoreSpam } from '../services/spam.js';
import { fixture, SISIMAI, sisimai } from './helpers.js';

const TO = 'shop-abc123@inbound.localhost';
const OWN = { domains: ['inbound.localhost', 'localhost'], senders: ['no-reply@localhost'] };

t.test(
  'every DSN and provider bounce of the Sisimai corpus is a bounce, every RFC 3834 reply an auto-reply',
  async (t) => {
    const files = readdirSync(SISIMAI).filter((f) => f.endsWith('.eml'));
    t.ok(files.length > 300, `${files.length} real messages`);
    const wrong: string[] = [];
    for (const file of files) {
      const f = await readMessage(sisimai(file));
      const got = detectBounce(f) ? 'bounce' : detectAutoReply(f) ? 'auto_reply' : 'other';
      const want = file.startsWith('rfc3834-') ? 'auto_reply' : 'bounce';
      if (got !== want) wrong.push(`${file}: ${got}`);
    }
    t.same(wrong, [], 'none is taken for a customer message');
  },
);

t.test('named bounces: the signal and the Message-ID of the message that bounced', async (t) => {
  const cases: [string, string][] = [
    ['lhost-postfix-01.eml', 'dsn'],
    ['lhost-exim-01.eml', 'x_failed_recipients'],
    ['lhost-gmail-01.eml', 'x_failed_recipients'],
    ['lhost-office365-01.eml', 'dsn'],
    ['lhost-qmail-01.eml', 'bounce_sender'],
    ['lhost-amazonses-09.eml', 'provider_notification'],
    ['arf-01.eml', 'feedback_report'],
    ['rfc3464-01.eml', 'dsn'],
  ];
  for (const [file, signal] of cases) {
    const found = detectBounce(await readMessage(sisimai(file)));
    t.equal(found?.signal, signal, `${file}: ${signal}`);
  }
  const postfix = detectBounce(await readMessage(sisimai('lhost-postfix-03.eml')));
  t.same(
    postfix!.originalMessageIds,
    ['<20140701000000.000000000000@e1.example.ne.jp>'],
    'the original Message-ID read from the report',
  );
});

t.test('named auto-replies of the corpus and of ours', async (t) => {
  t.equal(
    detectAutoReply(await readMessage(sisimai('rfc3834-01.eml'))),
    'auto_submitted',
    'Auto-Submitted: auto-replied',
  );
  t.equal(
    detectAutoReply(await readMessage(sisimai('rfc3834-03.eml'))),
    'auto_reply_subject',
    '"Auto reply:" without headers (Apple)',
  );
  t.equal(
    detectAutoReply(await readMessage(fixture('auto-reply-outlook-it', { to: TO }))),
    'auto_reply_subject',
    'Italian Outlook "Risposta automatica:"',
  );
  t.equal(
    detectAutoReply(await readMessage(fixture('auto-reply-vendor-header', { to: TO }))),
    'x_autoreply',
    'X-Autoreply',
  );
  const customer = await readMessage(fixture('customer-question', { to: TO }));
  t.equal(detectAutoReply(customer), null, 'a customer question is not an auto-reply');
  t.equal(detectBounce(customer), null, 'nor a bounce');
  t.equal(
    detectAutoReply(
      await readMessage(
        Buffer.from('From: a@example.com\r\nSubject: Automatic replies do not work in your app\r\n\r\nHi\r\n'),
      ),
    ),
    null,
    'a subject about automatic replies is not one',
  );
});

t.test('mailing lists, no-reply senders, our own mail', async (t) => {
  t.equal(detectMailingList(await readMessage(fixture('mailing-list', { to: TO }))), 'list_id');
  t.equal(detectMailingList(await readMessage(fixture('customer-question', { to: TO }))), null);
  t.ok(
    isNoReplySender('no-reply@notifications.example.net') &&
      isNoReplySender('donotreply@x.example') &&
      isNoReplySender('billing-noreply@x.example'),
  );
  t.notOk(
    isNoReplySender('nora.reply@example.com') || isNoReplySender('support@example.com'),
    'people named like it are not',
  );
  t.equal(detectOwnMail(await readMessage(fixture('loop-own-reply', { to: TO })), OWN), 'own_sender');
  t.equal(detectOwnMail(await readMessage(fixture('customer-question', { to: TO })), OWN), null);
  const viaXLoop = Buffer.from(`From: x@example.com\r\nX-Loop: ${TO}\r\nSubject: hi\r\n\r\nhi\r\n`);
  t.equal(detectOwnMail(await readMessage(viaXLoop), OWN), 'x_loop');
});

t.test('forwarding: a Gmail confirmation request and our test', async (t) => {
  const found = detectForwardingConfirmation(await readMessage(fixture('gmail-forwarding-confirmation', { to: TO })));
  t.same(found, {
    code: '914326578',
    url: 'https://mail-settings.google.com/mail/vf-%5BANGjdJ9xq3lXKr2y1Wb8-0Qd5c1aT2e%5D-Tq2BoB1l7vZ9s3Xw',
    requestedBy: 'support.acme@gmail.com',
  });
  t.equal(detectForwardingConfirmation(await readMessage(fixture('customer-question', { to: TO }))), null);
  const test = await readMessage(
    Buffer.from('From: no-reply@localhost\r\nSubject: Forwarding test FT-ABCD2345\r\n\r\nTest code: FT-ABCD2345\r\n'),
  );
  t.ok(isForwardingTest(test, 'FT-ABCD2345'));
  t.notOk(isForwardingTest(test, 'FT-OTHER999'), 'only the current code');
});

t.test('spam score: provider verdicts and header heuristics', async (t) => {
  const spam = scoreSpam(await readMessage(fixture('spam-lottery', { to: TO })), {});
  t.ok(spam.score >= 6, `lottery scam scores ${spam.score}`);
  for (const s of [
    'x_spam_flag',
    'spf_fail',
    'dmarc_fail',
    'display_name_spoof',
    'spam_phrases',
    'ip_url',
    'subject_caps',
  ])
    t.ok(spam.signals.includes(s), s);
  const clean = scoreSpam(await readMessage(fixture('customer-question', { to: TO })), {});
  t.same(clean, { score: 0, signals: [] }, 'a customer question scores 0');
  const flagged = scoreSpam(await readMessage(fixture('customer-question', { to: TO })), { spam: 'fail', spf: 'pass' });
  t.same(flagged.signals, ['provider_spam'], 'the provider verdict counts');
  t.equal(
    scoreSpam(await readMessage(fixture('customer-question', { to: TO })), { virus: 'fail' }).score,
    100,
    'a virus always quarantines',
  );
});

t.test('subjects, zones and DNS values', (t) => {
  t.equal(normalizeSubject('Re: Fwd: R: I: The checkout'), 'the checkout');
  t.equal(zoneOf('mail.acme.co.uk'), 'acme.co.uk');
  t.equal(zoneOf('mail.acme.com'), 'acme.com');
  t.equal(hostOf('pw._domainkey.mail.acme.com', 'acme.com'), 'pw._domainkey.mail');
  t.equal(hostOf('acme.com', 'acme.com'), '@');
  t.ok(
    txtMatches('v=spf1 include:_spf.localhost ~all', 'v=spf1 include:_spf.google.com include:_spf.localhost -all'),
    'SPF with our include among others',
  );
  t.notOk(txtMatches('v=spf1 include:_spf.localhost ~all', 'v=spf1 include:_spf.google.com ~all'), 'SPF without it');
  t.ok(txtMatches('v=DMARC1; p=none', 'v=DMARC1; p=reject; rua=mailto:d@acme.com'), 'any DMARC policy');
  const rec = (status: 'verified' | 'pending' | 'failed' | 'temporary_failure', record = 'dkim') => ({
    purpose: 'sending' as const,
    record,
    type: 'CNAME' as const,
    name: 'n',
    value: 'v',
    status,
  });
  t.equal(aggregate([rec('verified'), rec('verified'), rec('pending', 'dmarc')]), 'verified', 'DMARC is optional');
  t.equal(aggregate([rec('verified'), rec('pending')]), 'partially_verified');
  t.equal(aggregate([rec('verified'), rec('failed')]), 'partially_failed');
  t.equal(aggregate([rec('failed'), rec('pending')]), 'failed');
  t.equal(aggregate([rec('pending'), rec('temporary_failure')]), 'temporary_failure');
  t.equal(aggregate([rec('pending'), rec('pending')]), 'pending');
  t.end();
});

t.test('the plan check of new tickets is spared far from the quota, never near it', async (t) => {
  const { QuotaCache } = await import('../services/intake.js');
  const q = new QuotaCache();
  t.notOk(q.take('o:w'), 'nothing known: check');
  q.remember('o:w', { ok: true, allowed: 1000, used: 800 });
  let spared = 0;
  while (q.take('o:w')) spared++;
  t.equal(spared, 19, 'a tenth of the headroom');
  q.remember('o:w', { ok: true, allowed: 50, used: 40 });
  t.notOk(q.take('o:w'), 'near the limit every ticket is checked');
  q.remember('o:w', { ok: true, allowed: 1000, used: 0 }, Date.now() - 61_000);
  t.notOk(q.take('o:w'), 'for a minute at most');
  q.remember('o:w', { ok: true });
  t.notOk(q.take('o:w'), 'a check without numbers is not cached');
});
