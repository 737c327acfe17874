/**
 * Contract kit of ChannelAdapter. Every email provider adapter runs it in its own test:
 *
 *   await runChannelAdapterContract(t, { name: 'mail-smtp', create: async () => new SmtpChannelAdapter(opts, deps), … });
 */
import Joi from 'joi';
import { simpleParser, type AddressObject } from 'mailparser';
import {
  DELIVERY_EVENT_TYPES,
  DNS_RECORD_STATUSES,
  DNS_RECORD_TYPES,
  DOMAIN_STATUSES,
  PROVIDER_VERDICTS,
  signMimeDelivery,
  type ChannelAdapter,
  type DomainPurpose,
  type InboundDelivery,
  type OutgoingEmail,
  type SendResult,
} from '../../core/contracts/index.js';
import {
  expectAdapterError,
  kitSuffix,
  problems,
  resolveLazy,
  runCommonCases,
  shapes,
  withAdapter,
  withBodyChanged,
  type ContractTest,
  type Forgery,
  type KitOptions,
  type Lazy,
} from './common.js';

export interface ChannelAdapterKitOptions extends KitOptions<ChannelAdapter> {
  /** Send cases (default on, to `kit@example.test`); false when no peer takes mail. */
  send?: boolean | { to: string[] };
  /**
   * Reads back, as raw RFC 5322 bytes, the message the peer received for a send (the file, what
   * the SMTP server got, the raw MIME the provider was handed). Given, the kit checks the
   * delivered message: headers, threading, both parts, the attachment, Cc recipients.
   */
  received?: (message: OutgoingEmail, result: SendResult) => Promise<Buffer>;
  /** Domain cases (default on, on `kit-<random>.example.test`); false when no provider peer runs. */
  domains?: boolean | { domain: string };
  /**
   * Secret of the `mime` provider the adapter was created with; required when the adapter lists
   * `mime`. The kit then signs and forges deliveries itself.
   */
  mimeSecret?: string;
  /** Deliveries of the adapter's own providers: one it accepts, and forged ones it must refuse. */
  inbound?: {
    signed: Lazy<InboundDelivery>;
    forged: Array<Forgery<InboundDelivery>>;
    expect?: { emails?: number; events?: number };
  };
}

const verdict = Joi.string().valid(...PROVIDER_VERDICTS);

const dnsRecordSchema = Joi.object({
  purpose: Joi.string().valid('sending', 'receiving', 'status_page').required(),
  record: Joi.string(),
  type: Joi.string()
    .valid(...DNS_RECORD_TYPES)
    .required(),
  name: shapes.nonEmpty.required(),
  value: shapes.nonEmpty.required(),
  priority: Joi.number().integer().min(0).when('type', { is: 'MX', then: Joi.required() }),
  ttl: Joi.alternatives(Joi.string(), Joi.number().integer().min(0)),
  status: Joi.string().valid(...DNS_RECORD_STATUSES),
});

const domainStateSchema = Joi.object({
  domain: shapes.nonEmpty.lowercase().required(),
  purpose: Joi.string().valid('sending', 'receiving').required(),
  status: Joi.string()
    .valid(...DOMAIN_STATUSES)
    .required(),
  records: Joi.array().items(dnsRecordSchema).min(1).required(),
  error: Joi.object({ code: shapes.nonEmpty.required(), message: Joi.string().required() }),
});

const sendResultSchema = Joi.object({
  providerMessageId: shapes.nonEmpty.required(),
  accepted: Joi.array().items(Joi.string()).min(1).required(),
  rejected: Joi.array().items(Joi.string()),
});

const parsedEmailSchema = Joi.object({
  recipient: Joi.string().email({ tlds: false }).lowercase().required(),
  raw: Joi.binary().min(1).required(),
  providerVerdicts: Joi.object({
    spam: verdict,
    virus: verdict,
    spf: verdict,
    dkim: verdict,
    dmarc: verdict,
  }).required(),
  providerMessageId: shapes.nonEmpty.required(),
});

const deliveryEventSchema = Joi.object({
  type: Joi.string()
    .valid(...DELIVERY_EVENT_TYPES)
    .required(),
  providerMessageId: shapes.nonEmpty.required(),
  recipient: Joi.string().email({ tlds: false }).required(),
  detail: Joi.string().required(),
  permanent: Joi.boolean(),
  occurredAt: shapes.date.required(),
});

const parseResultSchema = Joi.object({
  emails: Joi.array().items(parsedEmailSchema).required(),
  events: Joi.array().items(deliveryEventSchema).required(),
});

/** Problems of a DomainState for the domain and purpose asked about. */
export function checkDomainState(state: unknown, domain: string, purpose: DomainPurpose): string[] {
  const found = problems(domainStateSchema, state);
  if (found.length) return found;
  const s = state as { domain: string; purpose: string; records: Array<{ type: string; purpose: string }> };
  if (s.domain !== domain.toLowerCase()) found.push(`domain: is ${s.domain}, asked ${domain}`);
  if (s.purpose !== purpose) found.push(`purpose: is ${s.purpose}, asked ${purpose}`);
  if (purpose === 'receiving' && !s.records.some((r) => r.type === 'MX'))
    found.push('records: a receiving domain needs an MX record');
  return found;
}

/** Problems of a SendResult for the message sent. */
export function checkSendResult(result: unknown, message: OutgoingEmail): string[] {
  const found = problems(sendResultSchema, result);
  if (found.length) return found;
  const r = result as { accepted: string[]; rejected?: string[] };
  const sentTo = new Set([...message.to, ...(message.cc ?? [])].map((a) => a.address.toLowerCase()));
  for (const a of [...r.accepted, ...(r.rejected ?? [])]) {
    if (!sentTo.has(a.toLowerCase())) found.push(`accepted/rejected: ${a} was not a recipient`);
  }
  return found;
}

const addressesOf = (field: AddressObject | AddressObject[] | undefined): string[] =>
  (Array.isArray(field) ? field : field ? [field] : []).flatMap((a) =>
    a.value.map((v) => (v.address ?? '').toLowerCase()),
  );

/** Problems of a received raw message against the OutgoingEmail it was sent as. */
export async function checkDeliveredMessage(raw: Buffer, message: OutgoingEmail): Promise<string[]> {
  const found: string[] = [];
  const parsed = await simpleParser(raw);
  const expect = (what: string, got: unknown, wanted: unknown) => {
    if (JSON.stringify(got) !== JSON.stringify(wanted))
      found.push(`${what}: is ${JSON.stringify(got)}, sent ${JSON.stringify(wanted)}`);
  };
  expect('Message-ID', parsed.messageId, message.messageId);
  expect('Subject', parsed.subject, message.subject);
  expect('From', addressesOf(parsed.from), [message.from.address.toLowerCase()]);
  expect('From name', parsed.from?.value[0]?.name ?? '', message.from.name ?? '');
  expect(
    'To',
    addressesOf(parsed.to),
    message.to.map((a) => a.address.toLowerCase()),
  );
  expect(
    'Cc',
    addressesOf(parsed.cc),
    (message.cc ?? []).map((a) => a.address.toLowerCase()),
  );
  if (message.replyTo) expect('Reply-To', addressesOf(parsed.replyTo), [message.replyTo.address.toLowerCase()]);
  const inReplyTo = message.headers['In-Reply-To'];
  if (inReplyTo) expect('In-Reply-To', parsed.inReplyTo, inReplyTo);
  const references = message.headers.References;
  if (references) {
    const refs = Array.isArray(parsed.references) ? parsed.references : parsed.references ? [parsed.references] : [];
    expect('References', refs, references.split(/\s+/).filter(Boolean));
  }
  const autoSubmitted = message.headers['Auto-Submitted'];
  if (autoSubmitted) expect('Auto-Submitted', parsed.headers.get('auto-submitted'), autoSubmitted);
  expect('text part', (parsed.text ?? '').replace(/\r\n/g, '\n').trimEnd(), message.text.trimEnd());
  if (message.html) expect('HTML part', (parsed.html || '').trim(), message.html.trim());
  for (const a of message.attachments ?? []) {
    const got = parsed.attachments.find((p) => p.filename === a.filename);
    if (!got) found.push(`attachment ${a.filename}: missing`);
    else if (!got.content.equals(a.content)) found.push(`attachment ${a.filename}: content differs`);
  }
  return found;
}

/** Problems of an InboundParseResult. */
export function checkInboundParseResult(result: unknown): string[] {
  return problems(parseResultSchema, result);
}

function kitMessage(to: string[]): OutgoingEmail {
  const id = kitSuffix();
  return {
    from: { address: 'support@kit.example.test', name: 'Kit Support' },
    to: to.map((address) => ({ address })),
    replyTo: { address: `reply+${id}@kit.example.test` },
    subject: `Contract kit ${id}`,
    text: 'Plain text body.\n',
    html: '<p>HTML body.</p>',
    messageId: `<kit-${id}@kit.example.test>`,
    headers: {
      'In-Reply-To': '<customer-1@example.test>',
      References: '<customer-1@example.test>',
      'Auto-Submitted': 'auto-replied',
    },
    attachments: [{ filename: 'note.txt', contentType: 'text/plain', content: Buffer.from('attached\n') }],
  };
}

/** A `mime` delivery signed with `secret` (or unsigned when null). */
export function mimeDelivery(recipient: string, secret: string | null, body?: string): InboundDelivery {
  const rawBody = Buffer.from(
    body ??
      [
        'From: Ada <ada@example.test>',
        `To: ${recipient}`,
        'Subject: The login button does nothing',
        `Message-ID: <kit-${kitSuffix()}@example.test>`,
        'Date: Tue, 02 Jan 2024 10:00:00 +0000',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'When I click Login nothing happens.',
        '',
      ].join('\r\n'),
  );
  const headers: InboundDelivery['headers'] = { 'content-type': 'message/rfc822', 'x-envelope-to': recipient };
  if (secret !== null) headers['x-webhook-signature'] = signMimeDelivery(rawBody, secret);
  return { provider: 'mime', contentType: 'message/rfc822', headers, rawBody };
}

/** Drives a ChannelAdapter through the cases every email provider must pass. */
export async function runChannelAdapterContract(t: ContractTest, opts: ChannelAdapterKitOptions): Promise<void> {
  await runCommonCases(t, 'channel', opts);

  await t.test('inboundProviders lists path segments', async (t) => {
    await withAdapter(opts, (adapter) => {
      const p = adapter.inboundProviders;
      t.ok(Array.isArray(p) && p.length > 0, 'at least one provider');
      t.ok(
        p.every((x) => /^[a-z0-9][a-z0-9-]*$/.test(x)),
        `each is a lower-case slug: ${p.join(', ')}`,
      );
    });
  });

  if (opts.send !== false) {
    const to = typeof opts.send === 'object' ? opts.send.to : ['kit@example.test'];
    await t.test('send() answers the provider id and the accepted recipients', async (t) => {
      await withAdapter(opts, async (adapter) => {
        const message = kitMessage(to);
        t.same(checkSendResult(await adapter.send(message), message), [], 'SendResult fits the contract');
      });
    });
    const received = opts.received;
    if (received) {
      await t.test('the delivered message keeps its headers, threading, parts and attachment', async (t) => {
        await withAdapter(opts, async (adapter) => {
          const message = kitMessage(to);
          const result = await adapter.send(message);
          t.same(
            await checkDeliveredMessage(await received(message, result), message),
            [],
            'the received message is the one sent',
          );
        });
      });
      await t.test('Cc recipients are sent to and accepted', async (t) => {
        await withAdapter(opts, async (adapter) => {
          const message: OutgoingEmail = {
            ...kitMessage(to),
            cc: [{ address: 'kit-cc@example.test', name: 'Kit Cc' }],
          };
          const result = await adapter.send(message);
          t.same(checkSendResult(result, message), [], 'SendResult fits the contract');
          t.ok(
            result.accepted.map((a) => a.toLowerCase()).includes('kit-cc@example.test'),
            'the Cc address is accepted',
          );
          t.same(
            await checkDeliveredMessage(await received(message, result), message),
            [],
            'the received message is the one sent',
          );
        });
      });
    }
  }

  if (opts.domains !== false) {
    const base = typeof opts.domains === 'object' ? opts.domains.domain : `kit-${kitSuffix()}.example.test`;
    for (const purpose of ['sending', 'receiving'] as const) {
      const domain = purpose === 'sending' ? `mail.${base}` : `in.${base}`;
      await t.test(`a ${purpose} domain is registered, checked and deleted`, async (t) => {
        await withAdapter(opts, async (adapter) => {
          const first = await adapter.registerDomain(domain, purpose);
          t.same(checkDomainState(first, domain, purpose), [], 'registerDomain answers a DomainState');
          const again = await adapter.registerDomain(domain, purpose);
          t.same(
            again.records.map((r) => [r.type, r.name, r.value]),
            first.records.map((r) => [r.type, r.name, r.value]),
            'registering again answers the same records',
          );
          t.same(
            checkDomainState(await adapter.checkDomain(domain, purpose), domain, purpose),
            [],
            'checkDomain answers a DomainState',
          );
          await adapter.deleteDomain(domain, purpose);
          await adapter.deleteDomain(domain, purpose);
          t.ok(true, 'deleteDomain succeeds, also when the domain is gone');
        });
      });
    }
  }

  await t.test('a delivery for a provider it does not read is refused', async (t) => {
    await withAdapter(opts, async (adapter) => {
      const d = { ...mimeDelivery('acme@in.kit.example.test', null), provider: 'kit-unknown-provider' };
      await expectAdapterError(t, () => adapter.parseInbound(d), [], 'unknown provider');
    });
  });

  await runMimeCases(t, opts);

  const inbound = opts.inbound;
  if (inbound) {
    await t.test('a signed delivery is read', async (t) => {
      await withAdapter(opts, async (adapter) => {
        const result = await adapter.parseInbound(await resolveLazy(inbound.signed));
        t.same(checkInboundParseResult(result), [], 'InboundParseResult fits the contract');
        if (inbound.expect?.emails !== undefined) t.equal(result.emails.length, inbound.expect.emails, 'emails');
        if (inbound.expect?.events !== undefined) t.equal(result.events.length, inbound.expect.events, 'events');
      });
    });
    await t.test('forged deliveries are refused with DeliverySignatureError', async (t) => {
      t.ok(inbound.forged.length > 0, 'the adapter gives at least one forged delivery');
      await withAdapter(opts, async (adapter) => {
        for (const f of inbound.forged) {
          const d = await resolveLazy(f.delivery);
          await expectAdapterError(t, () => adapter.parseInbound(d), ['invalid_signature'], f.name);
        }
      });
    });
  }
}

async function runMimeCases(t: ContractTest, opts: ChannelAdapterKitOptions): Promise<void> {
  const offersMime = await withAdapter(opts, (a) => a.inboundProviders.includes('mime'));
  if (!offersMime) return;
  const secret = opts.mimeSecret;
  if (!secret) {
    await t.test('mime deliveries can be checked', (t) => {
      t.fail('the adapter reads `mime`: give the kit its `mimeSecret`');
      t.end();
    });
    return;
  }
  const recipient = 'acme@in.kit.example.test';

  await t.test('a signed mime delivery gives one email for the envelope recipient', async (t) => {
    await withAdapter(opts, async (adapter) => {
      const d = mimeDelivery(recipient, secret);
      const result = await adapter.parseInbound(d);
      t.same(checkInboundParseResult(result), [], 'InboundParseResult fits the contract');
      t.equal(result.emails.length, 1, 'one email');
      t.equal(result.emails[0]?.recipient, recipient, 'recipient from X-Envelope-To');
      t.ok(result.emails[0]?.raw.equals(d.rawBody), 'raw is the delivered message');
    });
  });

  const forged: Array<[string, () => InboundDelivery]> = [
    ['no signature header', () => mimeDelivery(recipient, null)],
    ['signed with another secret', () => mimeDelivery(recipient, `${secret}-not-it`)],
    ['body changed after signing', () => withBodyChanged(mimeDelivery(recipient, secret))],
    [
      'malformed signature',
      () => {
        const d = mimeDelivery(recipient, secret);
        return { ...d, headers: { ...d.headers, 'x-webhook-signature': 'sha256=nothex' } };
      },
    ],
  ];
  await t.test('forged mime deliveries are refused with DeliverySignatureError', async (t) => {
    await withAdapter(opts, async (adapter) => {
      for (const [name, make] of forged) {
        await expectAdapterError(t, () => adapter.parseInbound(make()), ['invalid_signature'], name);
      }
    });
  });

  await runMimeParsingCases(t, opts, secret);
}

/** A signed `mime` delivery of exact bytes to the recipients header as given. */
function signedMime(rawBody: Buffer, envelopeTo: string | null, secret: string): InboundDelivery {
  const headers: InboundDelivery['headers'] = {
    'content-type': 'message/rfc822',
    'x-webhook-signature': signMimeDelivery(rawBody, secret),
  };
  if (envelopeTo !== null) headers['x-envelope-to'] = envelopeTo;
  return { provider: 'mime', contentType: 'message/rfc822', headers, rawBody };
}

/**
 * How an adapter reads a signed `mime` delivery for the inbox: one email per envelope recipient
 * (normalized), the message byte for byte, a provider id that is stable for the same bytes (the
 * inbox's deduplication falls back on it), and payload errors for what cannot be a delivery.
 */
async function runMimeParsingCases(t: ContractTest, opts: ChannelAdapterKitOptions, secret: string): Promise<void> {
  await t.test('several envelope recipients give one email each, normalized, same message', async (t) => {
    await withAdapter(opts, async (adapter) => {
      const raw = mimeDelivery('a@in.kit.example.test', secret).rawBody;
      const result = await adapter.parseInbound(
        signedMime(raw, ' <A@In.Kit.Example.test>, b@in.kit.example.test ', secret),
      );
      t.same(checkInboundParseResult(result), [], 'InboundParseResult fits the contract');
      t.same(
        result.emails.map((e) => e.recipient),
        ['a@in.kit.example.test', 'b@in.kit.example.test'],
        'lower case, without angle brackets or spaces',
      );
      t.ok(
        result.emails.every((e) => e.raw.equals(raw)),
        'each carries the whole message',
      );
      t.equal(new Set(result.emails.map((e) => e.providerMessageId)).size, 1, 'one delivery id for the delivery');
      t.same(result.events, [], 'a mime delivery carries no delivery events');
    });
  });

  await t.test('the delivery id is stable for the same bytes and differs for others', async (t) => {
    await withAdapter(opts, async (adapter) => {
      const raw = mimeDelivery('a@in.kit.example.test', secret).rawBody;
      const first = await adapter.parseInbound(signedMime(raw, 'a@in.kit.example.test', secret));
      const again = await adapter.parseInbound(signedMime(Buffer.from(raw), 'a@in.kit.example.test', secret));
      const other = await adapter.parseInbound(
        signedMime(Buffer.concat([raw, Buffer.from('P.S.\r\n')]), 'a@in.kit.example.test', secret),
      );
      t.equal(first.emails[0]?.providerMessageId, again.emails[0]?.providerMessageId, 'a redelivery has the same id');
      t.ok(first.emails[0]?.providerMessageId !== other.emails[0]?.providerMessageId, 'another message has another id');
    });
  });

  await t.test('an 8-bit message with a delivery report inside is passed on byte for byte', async (t) => {
    await withAdapter(opts, async (adapter) => {
      const raw = Buffer.concat([
        Buffer.from(
          [
            'From: MAILER-DAEMON@mx.kit.example.test (Mail Delivery System)',
            'To: acme@in.kit.example.test',
            'Subject: Undelivered Mail Returned to Sender',
            'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
            'MIME-Version: 1.0',
            '',
            '--b1',
            'Content-Type: text/plain; charset=iso-8859-1',
            'Content-Transfer-Encoding: 8bit',
            '',
            'Impossibile recapitare il messaggio a ',
          ].join('\r\n'),
        ),
        Buffer.from([0xe8, 0xe0, 0x0d, 0x0a]),
        Buffer.from(
          [
            '--b1',
            'Content-Type: message/delivery-status',
            '',
            'Final-Recipient: rfc822; ada@example.test',
            'Action: failed',
            'Status: 5.1.1',
            '',
            '--b1--',
            '',
          ].join('\r\n'),
        ),
      ]);
      const result = await adapter.parseInbound(signedMime(raw, 'acme@in.kit.example.test', secret));
      t.ok(result.emails[0]?.raw.equals(raw), 'raw is the delivered bytes');
    });
  });

  await t.test('a delivery without recipients or without a message is refused with PayloadError', async (t) => {
    await withAdapter(opts, async (adapter) => {
      const raw = mimeDelivery('a@in.kit.example.test', secret).rawBody;
      await expectAdapterError(
        t,
        () => adapter.parseInbound(signedMime(raw, null, secret)),
        ['invalid_payload'],
        'no X-Envelope-To',
      );
      await expectAdapterError(
        t,
        () => adapter.parseInbound(signedMime(raw, ' , ', secret)),
        ['invalid_payload'],
        'an empty X-Envelope-To',
      );
      await expectAdapterError(
        t,
        () => adapter.parseInbound(signedMime(Buffer.alloc(0), 'a@in.kit.example.test', secret)),
        ['invalid_payload'],
        'an empty body',
      );
    });
  });
}
