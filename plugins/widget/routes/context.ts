import type { Request } from '@hapi/hapi';
import type { CallerMeta } from '../services/intake.js';

export const TAG = 'widget';
export const ADMINS = { roles: ['owner', 'admin'] };

export function callerOf(request: Request): CallerMeta {
  return {
    origin: request.headers.origin as string | undefined,
    // The configured trust rule, as for audit entries: a spoofed X-Forwarded-For never moves a rate-limit key.
    ip: request.actor({ anonymous: true }).ip,
    userAgent: request.headers['user-agent'] as string | undefined,
  };
}

/** The public key of a widget call: X-Widget-Key, then `key` (or `public_key`) in the query, then `public_key` in the body. */
export function keyOf(request: Request): string | undefined {
  const q = request.query as { key?: string; public_key?: string };
  const body = request.payload as { public_key?: string } | null;
  return (
    (request.headers['x-widget-key'] as string | undefined) || q.key || q.public_key || body?.public_key || undefined
  );
}
