import { randomBytes } from 'node:crypto';
import { signMimeDelivery } from '../../core/contracts/index.js';
import type { App } from '../../core/kernel/app.js';
import type { Answer } from './api-types.js';
import { call, type Call } from './call.js';

/** What an inbound email says; what a test leaves out gets a plain default (Ada writes, a fresh Message-ID). */
export interface InboundEmail {
  to: string;
  from?: string;
  subject?: string;
  /** The Message-ID header's value, angle brackets included. */
  id?: string;
  body?: string;
  /** More header lines, written after Message-ID. */
  headers?: Record<string, string>;
}

const uid = (): string => randomBytes(6).toString('hex');

/** A small plain-text RFC 5322 message, as a mail provider hands it over (CRLF line ends). */
export function inboundEmail(m: InboundEmail): Buffer {
  const lines = [
    `From: ${m.from ?? 'Ada Lovelace <ada.lovelace@example.com>'}`,
    `To: ${m.to}`,
    `Subject: ${m.subject ?? `Question ${uid()}`}`,
    'Date: Wed, 10 Jan 2024 10:00:00 +0000',
    `Message-ID: ${m.id ?? `<m-${uid()}@mail.example.com>`}`,
    ...Object.entries(m.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    '',
    m.body ?? 'Something does not work.',
    '',
  ];
  return Buffer.from(lines.join('\r\n'));
}

/**
 * POST /v1/webhooks/email/mime (the `mime` provider): `raw` for the envelope `recipients`, signed
 * with `secret` (no signature header when it is null).
 */
export function deliverMime(
  app: App,
  raw: Buffer,
  recipients: string | string[],
  secret: string | null,
): Promise<Call<Answer<'POST', '/v1/webhooks/email/mime'>>> {
  const headers: Record<string, string> = {
    'content-type': 'message/rfc822',
    'x-envelope-to': Array.isArray(recipients) ? recipients.join(', ') : recipients,
  };
  if (secret) headers['x-webhook-signature'] = signMimeDelivery(raw, secret);
  return call(app, null, 'POST', '/v1/webhooks/email/mime', raw, headers);
}

/** A mail client's one-click unsubscribe (RFC 8058): the POST of a List-Unsubscribe link's `path`. */
export function oneClickUnsubscribe(app: App, path: string) {
  return app.server.inject({
    method: 'POST',
    url: path,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'List-Unsubscribe=One-Click',
  });
}
