import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * An opaque credential: `<prefix>_<43 chars of base64url>` carrying 256 random bits. Only its
 * SHA-256 is stored, so a database leak reveals no usable token.
 */
export function newToken(prefix: string): { token: string; hash: string } {
  const token = `${prefix}_${randomBytes(32).toString('base64url')}`;
  return { token, hash: hashToken(token) };
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export const hmacSha256Hex = (key: string | Buffer, data: string | Buffer): string =>
  createHmac('sha256', key).update(data).digest('hex');
