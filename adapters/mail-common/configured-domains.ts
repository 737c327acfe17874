/**
 * Domains of providers without a domain API (the outbox, a plain SMTP relay): the operator
 * configures the DNS records a customer publishes, with `{domain}` standing for the customer's
 * domain and `{host}` for the host of PUBLIC_BASE_URL. Records are reported `pending` until a DNS
 * check exists.
 */
import Joi from 'joi';
import {
  AbstractChannelAdapter,
  DNS_RECORD_TYPES,
  channelAdapterOptionKeys,
  type AdapterDeps,
  type ChannelAdapterOptions,
  type DnsRecord,
  type DomainPurpose,
  type DomainState,
} from '../../core/contracts/index.js';

/** A DnsRecord as configured: no purpose or status yet, and `{domain}` in its name. */
export interface ConfiguredRecord extends Omit<DnsRecord, 'purpose' | 'status' | 'name'> {
  /** Fully qualified name, with `{domain}`, e.g. `pw._domainkey.{domain}`. */
  name: string;
}

export interface DomainRecordOptions {
  sending: ConfiguredRecord[];
  receiving: ConfiguredRecord[];
}

const record = Joi.object<ConfiguredRecord>({
  record: Joi.string().max(50),
  type: Joi.string()
    .valid(...DNS_RECORD_TYPES)
    .required(),
  name: Joi.string().max(253).required(),
  value: Joi.string().max(2000).required(),
  priority: Joi.number().integer().min(0).max(65535).when('type', { is: 'MX', then: Joi.required() }),
  ttl: Joi.alternatives(Joi.string(), Joi.number().integer().min(0)),
});

/** Joi of the `domainRecords` option. */
export const domainRecordsSchema = Joi.object<DomainRecordOptions>({
  sending: Joi.array().items(record).min(1).required(),
  receiving: Joi.array()
    .items(record)
    .min(1)
    .has(Joi.object({ type: Joi.valid('MX') }).unknown(true))
    .required(),
});

/** Records when the operator configures none: generic names under the service's own host. */
export function defaultDomainRecords(): DomainRecordOptions {
  return {
    sending: [
      { record: 'spf', type: 'TXT', name: '{domain}', value: 'v=spf1 include:_spf.{host} ~all' },
      { record: 'dkim', type: 'CNAME', name: 'patchwell._domainkey.{domain}', value: 'patchwell._domainkey.{host}' },
      { record: 'return_path', type: 'CNAME', name: 'bounce.{domain}', value: 'bounce.{host}' },
      { record: 'dmarc', type: 'TXT', name: '_dmarc.{domain}', value: 'v=DMARC1; p=none' },
    ],
    receiving: [{ record: 'mx', type: 'MX', name: '{domain}', value: 'mx.{host}', priority: 10 }],
  };
}

/** The DomainState of `domain`: the configured records filled in, all `pending`. */
export function configuredDomainState(
  records: DomainRecordOptions,
  host: string,
  domain: string,
  purpose: DomainPurpose,
): DomainState {
  const name = domain.trim().toLowerCase().replace(/\.$/, '');
  const fillIn = (s: string) => s.replaceAll('{domain}', name).replaceAll('{host}', host);
  const list: DnsRecord[] = records[purpose].map((r) => ({
    purpose,
    ...(r.record ? { record: r.record } : {}),
    type: r.type,
    name: fillIn(r.name),
    value: fillIn(r.value),
    ...(r.priority !== undefined ? { priority: r.priority } : {}),
    ...(r.ttl !== undefined ? { ttl: r.ttl } : {}),
    status: 'pending',
  }));
  return { domain: name, purpose, status: 'pending', records: list };
}

/** Host of PUBLIC_BASE_URL from the adapter deps' config, or `localhost`. */
export function publicHost(config: unknown): string {
  const url = (config as { server?: { publicBaseUrl?: string } } | undefined)?.server?.publicBaseUrl;
  try {
    return url ? new URL(url).hostname : 'localhost';
  } catch {
    return 'localhost';
  }
}

/** Options of an adapter whose customer domains are configured records. */
export interface ConfiguredDomainsOptions extends ChannelAdapterOptions {
  /** DNS records reported for customer domains. */
  domainRecords?: DomainRecordOptions;
}

/** Joi keys of ConfiguredDomainsOptions, for a vendor schema to spread. */
export const configuredDomainsOptionKeys: Joi.PartialSchemaMap<ConfiguredDomainsOptions> = {
  ...channelAdapterOptionKeys,
  domainRecords: domainRecordsSchema,
};

/**
 * A channel adapter whose provider has no domain API (the outbox, a plain SMTP relay): a domain is
 * registered nowhere, and its state is the configured records, all `pending`.
 */
export abstract class ConfiguredDomainsChannelAdapter<
  O extends ConfiguredDomainsOptions,
> extends AbstractChannelAdapter<O> {
  private readonly host: string;
  private readonly records: DomainRecordOptions;

  constructor(options: O, deps?: AdapterDeps) {
    super(options, deps);
    this.host = publicHost(deps?.config);
    this.records = options.domainRecords ?? defaultDomainRecords();
  }

  registerDomain(domain: string, purpose: DomainPurpose): Promise<DomainState> {
    return Promise.resolve(configuredDomainState(this.records, this.host, domain, purpose));
  }

  checkDomain(domain: string, purpose: DomainPurpose): Promise<DomainState> {
    return Promise.resolve(configuredDomainState(this.records, this.host, domain, purpose));
  }

  async deleteDomain(): Promise<void> {
    // Nothing was registered anywhere.
  }
}
