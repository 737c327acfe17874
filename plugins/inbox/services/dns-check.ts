import type { DnsRecord, DnsRecordStatus, DomainState, DomainStatus } from '../../../core/contracts/index.js';
import type { DnsLookup } from '../../../core/net/dns.js';
import { isRequired } from './serialize.js';

const norm = (s: string) => s.trim().replace(/^"|"$/g, '').replace(/\.$/, '').replace(/\s+/g, ' ').toLowerCase();

/** Mechanisms an SPF record must contain (`include:`, `a`, `mx`, `ip4:` …), ignoring the others and the `all`. */
const spfMechanisms = (value: string) =>
  norm(value)
    .split(' ')
    .filter((t) => t && !/^v=spf1$/.test(t) && !/^[-~?+]?all$/.test(t));

/** Whether a published TXT value satisfies the expected one. */
export function txtMatches(expected: string, published: string): boolean {
  const e = norm(expected);
  const p = norm(published);
  if (e.startsWith('v=spf1'))
    return p.startsWith('v=spf1') && spfMechanisms(expected).every((m) => spfMechanisms(published).includes(m));
  // Any DMARC policy will do: the record exists, the customer picks the policy.
  if (e.startsWith('v=dmarc1')) return p.startsWith('v=dmarc1');
  return e === p;
}

/**
 * Looks one record up: `verified` when published as expected, `failed` when something else is
 * published (or it stays missing past the grace period), `pending` while missing,
 * `temporary_failure` when DNS did not answer.
 */
export async function checkRecord(dns: DnsLookup, r: DnsRecord, missingFails: boolean): Promise<DnsRecordStatus> {
  const type = r.type;
  const found = await dns.lookup(type, r.name);
  if ('error' in found) {
    if (found.error === 'dns_error') return 'temporary_failure';
    return missingFails ? 'failed' : 'pending';
  }
  const want = norm(r.value);
  const ok = found.values.some((v) => (r.type === 'TXT' ? txtMatches(r.value, v.value) : norm(v.value) === want));
  if (ok) return 'verified';
  // An SPF record exists without our include, or another CNAME/MX answers: the customer must change it.
  return 'failed';
}

/** The domain's status from its required records. */
export function aggregate(records: DnsRecord[]): DomainStatus {
  const statuses = records.filter(isRequired).map((r) => r.status ?? 'not_started');
  if (statuses.length === 0) return 'not_started';
  const n = (s: DnsRecordStatus) => statuses.filter((x) => x === s).length;
  if (n('verified') === statuses.length) return 'verified';
  if (n('temporary_failure') > 0 && n('failed') === 0) return 'temporary_failure';
  if (n('verified') > 0) return n('failed') > 0 ? 'partially_failed' : 'partially_verified';
  if (n('failed') > 0) return 'failed';
  if (n('not_started') === statuses.length) return 'not_started';
  return 'pending';
}

const DECIDED: ReadonlySet<string> = new Set(['verified', 'failed', 'temporary_failure']);

/**
 * Merges what the provider said with our own DNS lookups: a record the provider decided keeps the
 * provider's status, the others get ours. The provider's domain status stands when it decided
 * one (SES); a provider that cannot check (outbox, SMTP relay: always `pending`) leaves the
 * status to the records.
 */
export async function checkDomainRecords(
  dns: DnsLookup,
  state: Pick<DomainState, 'status' | 'records'>,
  opts: { missingFails: boolean },
): Promise<{ status: DomainStatus; records: DnsRecord[] }> {
  const records = await Promise.all(
    state.records.map(async (r) =>
      r.status && DECIDED.has(r.status) ? r : { ...r, status: await checkRecord(dns, r, opts.missingFails) },
    ),
  );
  const status = state.status === 'pending' || state.status === 'not_started' ? aggregate(records) : state.status;
  return { status, records };
}
