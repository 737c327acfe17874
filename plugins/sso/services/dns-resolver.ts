import { Resolver } from 'node:dns/promises';

export type TxtLookup = { records: string[] } | { error: 'missing' | 'dns_error'; message: string };

/**
 * TXT lookups for domain verification, through the configured servers (plugin option
 * `dnsServers`; tests point it at a local DNS server) or the system's. Container key `dnsResolver`.
 */
export class DnsResolver {
  private readonly servers: string[];
  private readonly timeoutMs: number;

  constructor({ ssoOptions }: { ssoOptions: { dnsServers: string[]; dnsTimeoutMs: number } }) {
    this.servers = ssoOptions.dnsServers;
    this.timeoutMs = ssoOptions.dnsTimeoutMs;
  }

  /** The TXT records of a name, each joined from its strings. */
  async txt(name: string): Promise<TxtLookup> {
    const resolver = new Resolver({ timeout: this.timeoutMs, tries: 2 });
    if (this.servers.length) resolver.setServers(this.servers);
    try {
      const records = await resolver.resolveTxt(name);
      return { records: records.map((parts) => parts.join('')) };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ENODATA' || code === 'ENOTFOUND' || code === 'NXDOMAIN') return { error: 'missing', message: code };
      return { error: 'dns_error', message: code ?? (err as Error).message };
    } finally {
      resolver.cancel();
    }
  }
}
