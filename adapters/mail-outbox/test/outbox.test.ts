import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { runChannelAdapterContract } from '../../../test/contracts/channel-adapter.js';
import outboxModule, { OutboxChannelAdapter, type OutboxOptions } from '../index.js';

const SECRET = 'outbox-webhook-secret-0123456789';
const dir = mkdtempSync(join(tmpdir(), 'pw-outbox-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const logged: Array<Record<string, unknown>> = [];
const deps = (dataDir: string) => ({
  config: { dataDir, server: { publicBaseUrl: 'https://pw.example.test' } },
  log: { info: (obj: Record<string, unknown>) => logged.push(obj) },
});
const make = (options: Partial<OutboxOptions>, dataDir: string) =>
  new OutboxChannelAdapter(OutboxChannelAdapter.validateOptions({ webhookSecret: SECRET, ...options }), deps(dataDir));

// One adapter per kit run, so `received` can read what it kept.
let current: OutboxChannelAdapter | null = null;
const kit = (dataDir: string) => ({
  name: 'mail-outbox',
  create: () => (current = make({}, dataDir)),
  module: outboxModule,
  validateOptions: (o: unknown) => OutboxChannelAdapter.validateOptions(o),
  options: {
    valid: { webhookSecret: SECRET, dir: '/tmp/x' },
    invalid: [
      { options: { webhookSecret: 'short' }, key: 'adapters.options.mail-outbox.webhookSecret' },
      { options: { domainRecords: { sending: [], receiving: [] } }, key: 'domainRecords.sending' },
      {
        options: {
          domainRecords: {
            sending: [{ type: 'TXT', name: '{domain}', value: 'v' }],
            receiving: [{ type: 'TXT', name: '{domain}', value: 'v' }],
          },
        },
        key: 'domainRecords.receiving',
      },
    ],
  },
  mimeSecret: SECRET,
  received: (message: { messageId: string }) => {
    const entry = current!.messages.find((e) => e.messageId === message.messageId)!;
    return Promise.resolve(entry.path ? readFileSync(entry.path) : entry.raw);
  },
});

t.test('contract kit: mail-outbox in memory (dataDir :memory:)', (t) => runChannelAdapterContract(t, kit(':memory:')));
t.test('contract kit: mail-outbox writing .eml files', (t) => runChannelAdapterContract(t, kit(dir)));

t.test('messages are written under <dataDir>/outbox and logged with their links', async (t) => {
  const adapter = make({}, dir);
  t.equal(adapter.dir, join(dir, 'outbox'));
  const result = await adapter.send({
    from: { address: 'no-reply@pw.example.test', name: 'Patchwell' },
    to: [{ address: 'ada@example.test' }],
    subject: 'Sign in',
    text: 'Open https://pw.example.test/magic?token=abc. It expires soon.',
    messageId: '<m-1@pw.example.test>',
    headers: { 'Auto-Submitted': 'auto-generated' },
  });
  t.match(result.providerMessageId, /^outbox-[0-9a-f]{24}$/);
  const files = readdirSync(join(dir, 'outbox'));
  const file = files.find((f) => f.includes(result.providerMessageId));
  t.ok(file?.endsWith('.eml'), `an .eml file: ${file}`);
  const eml = readFileSync(join(dir, 'outbox', file!), 'utf8');
  t.match(eml, /\r\nMessage-ID: <m-1@pw\.example\.test>\r\n/);
  t.match(eml, /Auto-Submitted: auto-generated/);
  const line = logged.find((l) => l.path === join(dir, 'outbox', file!));
  t.same(line?.links, ['https://pw.example.test/magic?token=abc'], 'the log line lists the link');
  t.same(line?.to, ['ada@example.test']);
});

t.test('waitFor finds a message sent later and times out otherwise', async (t) => {
  const adapter = make({ keep: 2 }, ':memory:');
  const waiting = adapter.waitFor((e) => e.subject === 'third');
  for (const subject of ['first', 'second', 'third']) {
    await adapter.send({
      from: { address: 'a@pw.example.test' },
      to: [{ address: 'b@example.test' }],
      subject,
      text: 'x',
      messageId: `<${subject}@pw.example.test>`,
      headers: {},
    });
  }
  t.equal((await waiting).subject, 'third');
  t.same(
    adapter.messages.map((m) => m.subject),
    ['second', 'third'],
    'only `keep` messages are kept',
  );
  t.equal(adapter.sentTo('B@example.test').length, 2);
  await t.rejects(
    adapter.waitFor(() => false, 50),
    { message: /no matching message within 50 ms/ },
  );
  adapter.clear();
  t.equal(adapter.messages.length, 0);
});

t.test('domains: the configured records, filled in and pending', async (t) => {
  const adapter = make(
    {
      domainRecords: {
        sending: [{ record: 'dkim', type: 'CNAME', name: 's1._domainkey.{domain}', value: 's1.dkim.{host}' }],
        receiving: [{ record: 'mx', type: 'MX', name: '{domain}', value: 'mx.{host}', priority: 5 }],
      },
    },
    ':memory:',
  );
  t.same(await adapter.registerDomain('Mail.Acme.COM.', 'sending'), {
    domain: 'mail.acme.com',
    purpose: 'sending',
    status: 'pending',
    records: [
      {
        purpose: 'sending',
        record: 'dkim',
        type: 'CNAME',
        name: 's1._domainkey.mail.acme.com',
        value: 's1.dkim.pw.example.test',
        status: 'pending',
      },
    ],
  });
  const receiving = await adapter.checkDomain('in.acme.com', 'receiving');
  t.same(receiving.records[0], {
    purpose: 'receiving',
    record: 'mx',
    type: 'MX',
    name: 'in.acme.com',
    value: 'mx.pw.example.test',
    priority: 5,
    status: 'pending',
  });
  const defaults = await make({}, ':memory:').registerDomain('mail.acme.com', 'sending');
  t.same(
    defaults.records.map((r) => r.record),
    ['spf', 'dkim', 'return_path', 'dmarc'],
    'default records',
  );
});
