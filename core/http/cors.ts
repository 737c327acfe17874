import type { Request, Server } from '@hapi/hapi';
import Boom from '@hapi/boom';

/**
 * CORS for the public operations that browsers call from a customer's pages (the widget, the Sentry
 * browser SDK): a workspace's allowed origins are exact origins (`https://shop.example.com`) or one
 * leading wildcard label (`https://*.example.com`, which matches subdomains, not the apex). A handler
 * that found the caller's Origin allowed marks the request (`allowCors`); onPreResponse then adds the
 * headers to its answer, successes and refusals alike (a 429 must be readable, with its Retry-After).
 */

/** The normalized origin, or null when the value is not an http(s) origin (no path, query or credentials). */
export function normalizeOrigin(value: string): string | null {
  const raw = value.trim();
  const wildcard = /^(https?):\/\/\*\.(.+)$/i.exec(raw);
  try {
    const url = new URL(wildcard ? `${wildcard[1]}://wildcard.${wildcard[2]}` : raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password || (url.pathname !== '/' && url.pathname !== '') || url.search || url.hash)
      return null;
    if (raw.replace(/\/+$/, '').split('/').length > 3) return null;
    return wildcard ? url.origin.replace('://wildcard.', '://*.') : url.origin;
  } catch {
    return null;
  }
}

/** Whether a request's Origin header is one of the allowed origins. */
export function originAllowed(origin: string | undefined, allowed: readonly string[]): boolean {
  if (!origin || origin === 'null') return false;
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  const o = url.origin;
  for (const a of allowed) {
    if (a === o) return true;
    const star = /^(https?:)\/\/\*\.(.+)$/.exec(a);
    if (star && url.protocol === star[1] && url.host.endsWith(`.${star[2]}`)) return true;
  }
  return false;
}

declare module '@hapi/hapi' {
  interface PluginsStates {
    cors?: { origin: string; expose: readonly string[] };
  }
}

/** Marks the request's Origin as allowed: its answer gets the CORS headers, exposing `expose`. */
export function allowCors(
  request: Request,
  origin: string | undefined,
  expose: readonly string[] = ['Retry-After'],
): void {
  if (origin) request.plugins.cors = { origin, expose };
}

/** Adds the CORS headers to the answers of requests a handler marked with allowCors. */
export function registerCors(server: Server): void {
  server.ext('onPreResponse', (request, h) => {
    const cors = request.plugins.cors;
    if (!cors) return h.continue;
    const res = request.response;
    const headers: Record<string, string> = {
      'access-control-allow-origin': cors.origin,
      'access-control-expose-headers': cors.expose.join(', '),
      vary: 'Origin',
    };
    if (Boom.isBoom(res)) Object.assign(res.output.headers, headers);
    else for (const [k, v] of Object.entries(headers)) res.header(k, v);
    return h.continue;
  });
}
