import { Resolver } from 'node:dns/promises';

/** Record types the lookups answer. */
export type DnsLookupType = 'TXT' | 'CNAME' | 'MX' | 'A' | 'AAAA' | 'CAA';

/** One answer: the value (TXT strings joined, names without the trailing dot) and the MX preference. */
export interface DnsValue {
  value: string;
  priority?: number;
}

/**
 * What a lookup found. `missing`: the name or the type does not exist (NXDOMAIN, NODATA), so the
 * record is not published (yet); `dns_error`: the lookup failed (SERVFAIL, timeout, refused), so
 * nothing can be said now.
 */
export type DnsLookupResult = { values: DnsValue[] } | { error: 'missing' | 'dns_error'; message: string };

export interface DnsLookupOptions {
  /** `host[:port]` of the servers to ask; empty = the system's. Tests point it at a local dns2 server. */
  servers?: string[];
  timeoutMs?: number;
  tries?: number;
}

const MISSING = new Set(['ENODATA', 'ENOTFOUND', 'NXDOMAIN', 'ENONAME']);

const bare = (name: string): string => name.replace(/\.$/, '').toLowerCase();

/**
 * DNS lookups for domain verification (TXT, CNAME, MX …) through configured servers or the
 * system's, with one small result type for every plugin that checks records customers publish.
 *
 * @example
 *   const dns = new DnsLookup({ servers: ['127.0.0.1:5353'], timeoutMs: 2000 });
 *   const r = await dns.lookup('CNAME', 'pw._domainkey.mail.acme.com');
 *   if ('values' in r) r.values[0]?.value // 'pw._domainkey.patchwell.example'
 */
export class DnsLookup {
  private readonly servers: string[];
  private readonly timeoutMs: number;
  private readonly tries: number;

  constructor(opts: DnsLookupOptions = {}) {
    this.servers = opts.servers ?? [];
    this.timeoutMs = opts.timeoutMs ?? 5000;
    this.tries = opts.tries ?? 2;
  }

  async lookup(type: DnsLookupType, name: string): Promise<DnsLookupResult> {
    const resolver = new Resolver({ timeout: this.timeoutMs, tries: this.tries });
    if (this.servers.length) resolver.setServers(this.servers);
    try {
      return { values: await this.query(resolver, type, bare(name)) };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code && MISSING.has(code)) return { error: 'missing', message: code };
      return { error: 'dns_error', message: code ?? (err as Error).message };
    } finally {
      resolver.cancel();
    }
  }

  private async query(resolver: Resolver, type: DnsLookupType, name: string): Promise<DnsValue[]> {
    switch (type) {
      case 'TXT':
        return (await resolver.resolveTxt(name)).map((parts) => ({ value: parts.join('') }));
      case 'CNAME':
        return (await resolver.resolveCname(name)).map((v) => ({ value: bare(v) }));
      case 'MX':
        return (await resolver.resolveMx(name)).map((m) => ({ value: bare(m.exchange), priority: m.priority }));
      case 'A':
        return (await resolver.resolve4(name)).map((value) => ({ value }));
      case 'AAAA':
        return (await resolver.resolve6(name)).map((value) => ({ value }));
      case 'CAA':
        return (await resolver.resolveCaa(name)).map((c) => ({
          value: `${c.critical} ${Object.entries(c)
            .filter(([k]) => k !== 'critical')
            .map(([k, v]) => `${k} "${String(v)}"`)
            .join(' ')}`,
        }));
    }
  }
}
