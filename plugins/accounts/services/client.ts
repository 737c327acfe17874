/** The parts of an HTTP request that sessions and audit entries record (no hapi types here). */
export interface RequestLike {
  info: { remoteAddress: string; id?: string };
  headers: Record<string, unknown>;
}

const header = (r: RequestLike, name: string): string | null => {
  const v = r.headers[name];
  const first: unknown = Array.isArray(v) ? v[0] : v;
  return typeof first === 'string' ? first : null;
};

/** The client address: the first X-Forwarded-For hop behind a trusted proxy, else the socket's. */
export function clientIp(request: RequestLike, trustProxy: boolean): string {
  if (trustProxy) {
    const fwd = header(request, 'x-forwarded-for')?.split(',')[0]?.trim();
    if (fwd) return fwd;
  }
  return request.info.remoteAddress || 'unknown';
}

export const userAgent = (request: RequestLike): string | null => header(request, 'user-agent')?.slice(0, 512) ?? null;
