import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import t, { type Test } from 'tap';
import { isAdapterError, type OutgoingEmail } from '../../../core/contracts/index.js';
import { runChannelAdapterContract } from '../../../test/contracts/channel-adapter.js';
import smtpModule, { SmtpChannelAdapter, type SmtpOptions } from '../index.js';

const SECRET = 'smtp-webhook-secret-0123456789';

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
  user: string | undefined;
}

/** A local SMTP server: AUTH PLAIN/LOGIN as kit/kit-pass; some recipients are refused. */
async function startServer(t: Test): Promise<{ port: number; received: Received[] }> {
  const received: Received[] = [];
  const server = new SMTPServer({
    authOptional: true,
    allowInsecureAuth: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === 'kit' && auth.password === 'kit-pass') cb(null, { user: 'kit' });
      else cb(Object.assign(new Error('Invalid username or password'), { responseCode: 535 }));
    },
    onRcptTo(address, _session, cb) {
      if (address.address.startsWith('unknown'))
        return cb(Object.assign(new Error('5.1.1 mailbox unknown'), { responseCode: 550 }));
      if (address.address.startsWith('later'))
        return cb(Object.assign(new Error('4.2.1 try again later'), { responseCode: 451 }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks),
          user: session.user as string | undefined,
        });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
  return { port, received };
}

const message = (over: Partial<OutgoingEmail> = {}): OutgoingEmail => ({
  from: { address: 'support@acme.test', name: 'Acme Support' },
  to: [{ address: 'ada@example.test' }],
  subject: 'Re: Login fails — risolto',
  text: 'Fixed in 1.4.2.\n\nhttps://acme.test/t/1\n',
  html: '<p>Fixed in <b>1.4.2</b>.</p>',
  messageId: `<smtp-${Date.now()}@acme.test>`,
  headers: {
    'In-Reply-To': '<c1@example.test>',
    References: '<c0@example.test> <c1@example.test>',
    'Auto-Submitted': 'auto-replied',
  },
  ...over,
});

t.test('mail-smtp against a local SMTP server', async (t) => {
  const { port, received } = await startServer(t);
  const options = (over: Partial<SmtpOptions> = {}) =>
    SmtpChannelAdapter.validateOptions({
      host: '127.0.0.1',
      port,
      auth: { user: 'kit', pass: 'kit-pass' },
      webhookSecret: SECRET,
      connectionTimeoutMs: 2000,
      ...over,
    });
  const make = (over: Partial<SmtpOptions> = {}) =>
    new SmtpChannelAdapter(options(over), {
      config: { server: { publicBaseUrl: 'https://pw.example.test' } },
      log: undefined,
    });

  await t.test('contract kit', (t) =>
    runChannelAdapterContract(t, {
      name: 'mail-smtp',
      create: () => make(),
      destroy: (a) => (a as SmtpChannelAdapter).close(),
      module: smtpModule,
      validateOptions: (o: unknown) => SmtpChannelAdapter.validateOptions(o),
      options: {
        valid: { url: 'smtps://u:p@smtp.example.test:465', webhookSecret: SECRET },
        invalid: [
          { options: {}, key: 'adapters.options.mail-smtp' },
          {
            options: { host: 'smtp.example.test', url: 'smtp://smtp.example.test' },
            key: 'adapters.options.mail-smtp',
          },
          { options: { url: 'http://smtp.example.test' }, key: 'adapters.options.mail-smtp.url' },
          { options: { host: 'smtp.example.test', auth: { user: 'u' } }, key: 'auth.pass' },
        ],
      },
      mimeSecret: SECRET,
      received: (m) => {
        const got = received.find((r) => r.raw.toString().includes(`Message-ID: ${m.messageId}`));
        if (!got) return Promise.reject(new Error(`the server did not receive ${m.messageId}`));
        return Promise.resolve(got.raw);
      },
    }),
  );

  await t.test(
    'the server receives both parts and the threading headers, authenticated, with the right envelope',
    async (t) => {
      const adapter = make({ envelopeFrom: 'bounces@acme.test' });
      t.teardown(() => adapter.close());
      const m = message({ cc: [{ address: 'bob@example.test' }] });
      const result = await adapter.send(m);
      t.equal(result.providerMessageId, m.messageId, 'the Message-ID is the provider id');
      t.same(result.accepted.sort(), ['ada@example.test', 'bob@example.test']);
      const got = received.find((r) => r.raw.includes(m.messageId))!;
      t.equal(got.user, 'kit', 'authenticated');
      t.equal(got.from, 'bounces@acme.test', 'MAIL FROM is the envelope sender');
      t.same(got.to.sort(), ['ada@example.test', 'bob@example.test'], 'RCPT TO: To and Cc');
      const parsed = await simpleParser(got.raw);
      t.equal(parsed.subject, m.subject, 'subject (encoded word) survives');
      t.equal(parsed.messageId, m.messageId);
      t.equal(parsed.inReplyTo, '<c1@example.test>');
      t.same(parsed.references, ['<c0@example.test>', '<c1@example.test>']);
      t.equal(parsed.headers.get('auto-submitted'), 'auto-replied');
      t.equal(parsed.text?.trimEnd(), m.text.trimEnd(), 'text part');
      t.equal(parsed.html, m.html, 'HTML part');
      t.match(
        String(parsed.headers.get('content-type') && (parsed.headers.get('content-type') as { value: string }).value),
        /multipart\/alternative/,
      );
      t.notMatch(got.raw.toString(), /^Bcc:/m, 'no Bcc header');
    },
  );

  await t.test('a url works instead of host and port', async (t) => {
    const adapter = new SmtpChannelAdapter(
      SmtpChannelAdapter.validateOptions({ url: `smtp://kit:kit-pass@127.0.0.1:${port}` }),
      { config: {}, log: undefined },
    );
    t.teardown(() => adapter.close());
    const m = message();
    await adapter.send(m);
    t.equal(received.find((r) => r.raw.includes(m.messageId))?.user, 'kit');
  });

  await t.test('refusals and outages become AdapterErrors the mail plugin can act on', async (t) => {
    const adapter = make();
    t.teardown(() => adapter.close());

    const partly = await adapter.send(
      message({ to: [{ address: 'ada@example.test' }, { address: 'unknown@example.test' }] }),
    );
    t.same(partly.accepted, ['ada@example.test']);
    t.same(partly.rejected, ['unknown@example.test'], 'a refused recipient is listed');

    const all = await adapter.send(message({ to: [{ address: 'unknown@example.test' }] })).catch((e: unknown) => e);
    t.ok(isAdapterError(all, 'send_rejected'), 'every recipient refused with 550: send_rejected');
    t.equal((all as { retryable: boolean }).retryable, false, 'not retryable');

    const later = await adapter.send(message({ to: [{ address: 'later@example.test' }] })).catch((e: unknown) => e);
    t.ok(isAdapterError(later, 'send_failed'), '451: send_failed');
    t.equal((later as { retryable: boolean }).retryable, true, 'retryable');

    const badAuth = make({ auth: { user: 'kit', pass: 'wrong' } });
    t.teardown(() => badAuth.close());
    const auth = await badAuth.send(message()).catch((e: unknown) => e);
    t.ok(isAdapterError(auth, 'send_failed'), 'wrong password: send_failed');
    t.equal((auth as { retryable: boolean }).retryable, true, 'retryable (an operator can fix the password)');

    const down = new SmtpChannelAdapter(
      SmtpChannelAdapter.validateOptions({ host: '127.0.0.1', port: 1, connectionTimeoutMs: 500 }),
      { config: {}, log: undefined },
    );
    const refused = await down.send(message()).catch((e: unknown) => e);
    t.ok(isAdapterError(refused, 'send_failed'), 'no server: send_failed');
    t.equal((refused as { retryable: boolean }).retryable, true, 'retryable');
  });
});
