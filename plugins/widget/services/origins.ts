/**
 * Allowed origins of a widget install: exact origins (`https://shop.example.com`) or one
 * leading wildcard label (`https://*.example.com`, which matches subdomains, not the apex).
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
