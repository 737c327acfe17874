import type { DnsLookup, DnsLookupResult } from '../../../core/net/dns.js';
import type { StatusDomainError } from '../models.js';

/** The two records a status domain needs: a CNAME to the service and a TXT challenge. */
export interface StatusRecords {
  cname: { type: 'CNAME'; name: string; value: string };
  txt: { type: 'TXT'; name: string; value: string };
}

export function statusRecords(
  domain: string,
  token: string,
  opts: { cnameTarget: string; txtLabel: string },
): StatusRecords {
  return {
    cname: { type: 'CNAME', name: domain, value: opts.cnameTarget },
    txt: { type: 'TXT', name: `${opts.txtLabel}.${domain}`, value: `patchwell-status-verification=${token}` },
  };
}

export interface StatusCheck {
  cnameOk: boolean;
  txtOk: boolean;
  /** The first problem found (DNS failure first, then the CNAME, then the TXT), or null. */
  error: StatusDomainError | null;
}

const bare = (s: string) => s.toLowerCase().replace(/\.$/, '');

/** Looks both records up now (through the shared resolver of core/net/dns.ts). */
export async function checkStatusRecords(dns: DnsLookup, records: StatusRecords): Promise<StatusCheck> {
  const [cname, txt]: DnsLookupResult[] = await Promise.all([
    dns.lookup('CNAME', records.cname.name),
    dns.lookup('TXT', records.txt.name),
  ]);
  const cnameOk = 'values' in cname && cname.values.some((v) => bare(v.value) === bare(records.cname.value));
  const txtOk = 'values' in txt && txt.values.some((v) => v.value.trim() === records.txt.value);
  let error: StatusDomainError | null = null;
  if (('error' in cname && cname.error === 'dns_error') || ('error' in txt && txt.error === 'dns_error'))
    error = 'dns_error';
  else if (!cnameOk) error = 'error' in cname || cname.values.length === 0 ? 'cname_missing' : 'cname_mismatch';
  else if (!txtOk) error = 'error' in txt || txt.values.length === 0 ? 'txt_missing' : 'txt_mismatch';
  return { cnameOk, txtOk, error };
}

const HOSTNAME = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/**
 * A status domain must be a host name with at least three labels (a CNAME cannot sit at a zone
 * apex), and not the service's own host or one of its subdomains.
 */
export function statusDomainProblem(domain: string, ownHosts: string[]): string | null {
  if (!HOSTNAME.test(domain)) return 'not a valid host name';
  if (domain.split('.').length < 3)
    return 'use a subdomain such as status.example.com (a CNAME cannot be set on the domain itself)';
  if (ownHosts.some((h) => domain === h || domain.endsWith(`.${h}`))) return 'this host belongs to the service';
  return null;
}
