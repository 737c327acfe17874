import { createHmac } from 'node:crypto';
import { headerValue, safeEqual, type RawHeaders } from '../../core/contracts/index.js';

/** Header of the simulated provider's webhooks: the same scheme as Stripe-Signature. */
export const LOCAL_SIGNATURE_HEADER = 'payment-local-signature';
export const TOLERANCE_SECONDS = 300;

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.body">`. */
export function signPayload(
  secret: string,
  body: string | Buffer,
  timestampSeconds = Math.floor(Date.now() / 1000),
): string {
  const mac = createHmac('sha256', secret).update(`${timestampSeconds}.`).update(body).digest('hex');
  return `t=${timestampSeconds},v1=${mac}`;
}

/**
 * Checks a `t=…,v1=…` header over the raw body: any v1 may match (secret rotation), and the
 * timestamp must be within the tolerance of now (replays of old deliveries are refused).
 */
export function verifySignature(
  headers: RawHeaders,
  header: string,
  secret: string,
  rawBody: Buffer,
  nowSeconds = Math.floor(Date.now() / 1000),
): boolean {
  const value = headerValue(headers, header);
  if (!value) return false;
  let t: number | null = null;
  const v1: string[] = [];
  for (const part of value.split(',')) {
    const [k, v] = part.trim().split('=', 2);
    if (k === 't' && v && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && v && /^[0-9a-f]{64}$/i.test(v)) v1.push(v.toLowerCase());
  }
  if (t === null || v1.length === 0) return false;
  if (Math.abs(nowSeconds - t) > TOLERANCE_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
  return v1.some((sig) => safeEqual(sig, expected));
}
