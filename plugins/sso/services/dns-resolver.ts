import { DnsLookup } from '../../../core/net/dns.js';

export type TxtLookup = { records: string[] } | { error: 'missing' | 'dns_error'; message: string };

/**
 * TXT lookups for domain verification through the shared resolver (core/net/dns.ts), pointed at
 * the configured servers (plugin option `dnsServers`; tests use a local DNS server) or the
 * system's. Container key `dnsResolver`.
 */
export class DnsResolver {
  private readonly dns: DnsLookup;

  constructor({ ssoOptions }: { ssoOptions: { dnsServers: string[]; dnsTimeoutMs: number } }) {
    this.dns = new DnsLookup({ servers: ssoOptions.dnsServers, timeoutMs: ssoOptions.dnsTimeoutMs });
  }

  /** The TXT records of a name, each joined from its strings. */
  async txt(name: string): Promise<TxtLookup> {
    const r = await this.dns.lookup('TXT', name);
    return 'values' in r ? { records: r.values.map((v) => v.value) } : r;
  }
}
