import Joi from 'joi';
import { AbstractAdapter, type RawHeaders } from './adapter.js';
import type { NormalizedEvent } from './connector-event.js';

/** Kinds of log source (spec: Connector.kind). */
export type ConnectorKind = 'error_tracker' | 'metrics_platform' | 'cloud_logs' | 'endpoint';
export const CONNECTOR_KINDS: readonly ConnectorKind[] = [
  'error_tracker',
  'metrics_platform',
  'cloud_logs',
  'endpoint',
];

/** Names of connector secrets (spec: Connector.secrets[].name). */
export type ConnectorSecretName =
  'client_secret' | 'auth_token' | 'api_key' | 'application_key' | 'access_key_id' | 'secret_access_key' | 'token';
export const CONNECTOR_SECRET_NAMES: readonly ConnectorSecretName[] = [
  'client_secret',
  'auth_token',
  'api_key',
  'application_key',
  'access_key_id',
  'secret_access_key',
  'token',
];

/**
 * Stable codes of settings problems; `POST /v1/connectors` answers them in
 * `details.errors[] = {code, field, message}`.
 */
export type SettingsIssueCode =
  | 'missing_field'
  | 'unknown_field'
  | 'invalid_value'
  | 'invalid_url'
  | 'insecure_url'
  | 'blocked_address'
  | 'invalid_region'
  | 'external_id_mismatch';
export const SETTINGS_ISSUE_CODES: readonly SettingsIssueCode[] = [
  'missing_field',
  'unknown_field',
  'invalid_value',
  'invalid_url',
  'insecure_url',
  'blocked_address',
  'invalid_region',
  'external_id_mismatch',
];

/** One problem with connector settings. */
export interface SettingsIssue {
  code: SettingsIssueCode;
  /** Field as the request names it: `config.region`, `secrets.auth_token`. */
  field: string;
  /** Sentence for people, in English. */
  message: string;
}

/** Facts the plugin knows beyond the request, for checks that need them. */
export interface SettingsContext {
  /** The external id the cloud-logs setup operation gave this workspace (the assumed role must use it). */
  expectedExternalId?: string;
  /** Secrets already stored (on update only the secrets sent are replaced). */
  storedSecrets?: readonly ConnectorSecretName[];
}

/** The decrypted settings of one connector, as the plugin hands them to the adapter. */
export interface ConnectorSettings {
  connectorId: string;
  workspaceId: string;
  config: Record<string, unknown>;
  /** Decrypted secrets by name; only those stored. */
  secrets: Partial<Record<ConnectorSecretName, string>>;
  /** When the last push arrived; push-only tests report it. */
  lastDeliveryAt?: Date | null;
  /**
   * SHA-256 (hex) of the push token the service issued to this connector (generic endpoint), as
   * stored. The token itself is never stored, so it cannot be among the decrypted `secrets`.
   */
  tokenHash?: string | null;
}

/** Codes of a connector test. `awaiting_delivery` and `receiving` go with `ok: null` (push-only). */
export type ConnectorTestCode =
  | 'ok'
  | 'awaiting_delivery'
  | 'receiving'
  | 'invalid_settings'
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'unreachable'
  | 'blocked_address'
  | 'rate_limited'
  | 'provider_error';
export const CONNECTOR_TEST_CODES: readonly ConnectorTestCode[] = [
  'ok',
  'awaiting_delivery',
  'receiving',
  'invalid_settings',
  'unauthorized',
  'forbidden',
  'not_found',
  'unreachable',
  'blocked_address',
  'rate_limited',
  'provider_error',
];

/**
 * Outcome of `POST /v1/connectors/{id}/test`. `ok` is true or false after calling the provider;
 * null when there is nothing to call (push-only), with code `awaiting_delivery` or `receiving`
 * and `details.last_delivery_at`.
 */
export interface ConnectorTestResult {
  ok: boolean | null;
  code: ConnectorTestCode;
  message: string;
  details: Record<string, unknown>;
}

/** What one poll brought. */
export interface PollResult {
  events: NormalizedEvent[];
  /** Opaque position to pass to the next poll; null to start over. */
  cursor: string | null;
  /** When to poll next (the scheduler honours the connector minimum). */
  nextPollInMs: number;
}

/**
 * A log source: checks its settings, tests them against the provider, and brings error events in
 * by polling, by pushes, or both. Several are active (`adapters.connector`), one per kind.
 */
export interface ConnectorAdapter {
  /**
   * Name of the adapter in config and container keys.
   *
   * @example adapter.identifier // 'connector-error-tracker'
   */
  readonly identifier: string;

  /**
   * The connector kind it serves (spec: Connector.kind).
   *
   * @example adapter.kind // 'cloud_logs'
   */
  readonly kind: ConnectorKind;

  /**
   * Secrets it accepts; any other secret name is an `unknown_field` issue.
   *
   * @example adapter.secretNames // ['access_key_id', 'secret_access_key']
   */
  readonly secretNames: readonly ConnectorSecretName[];

  /**
   * Whether the service polls the provider (then `poll` exists; Connector.polls).
   *
   * @example adapter.polls // true for metrics_platform, false for endpoint
   */
  readonly polls: boolean;

  /**
   * Checks settings without calling anyone; an empty list means valid. Never throws.
   *
   * @example
   * adapter.validateSettings({ region: 'mars-1' }, {}, { expectedExternalId: 'pw-123' })
   * // [{ code: 'invalid_region', field: 'config.region', message: '…' }, { code: 'missing_field', field: 'config.role_arn', … }]
   */
  validateSettings(
    config: Record<string, unknown>,
    secrets: Record<string, string>,
    context?: SettingsContext,
  ): SettingsIssue[];

  /**
   * Tries the settings against the provider. Failures are answers (`ok: false` with a code),
   * not exceptions.
   *
   * @example (await adapter.test(settings)) // { ok: false, code: 'unauthorized', message: 'the token was refused', details: { status: 401 } }
   */
  test(settings: ConnectorSettings): Promise<ConnectorTestResult>;

  /**
   * Fetches events newer than the cursor (null: from now). Present when `polls` is true. Throws a
   * retryable AdapterError on a provider outage.
   *
   * @example const { events, cursor, nextPollInMs } = await adapter.poll!(settings, state.cursor)
   */
  poll?(settings: ConnectorSettings, cursor: string | null): Promise<PollResult>;

  /**
   * Checks a push (webhook or ingest request) before anything is read: signature or token.
   * False for anything missing or wrong; never throws. Present with `normalizePush`.
   *
   * @example adapter.verifyPush!(request.headers, rawBody, settings) // false → 401
   */
  verifyPush?(headers: RawHeaders, rawBody: Buffer, settings: ConnectorSettings): boolean;

  /**
   * Turns a verified push body (parsed JSON) into events. A body it cannot read gives [] or a
   * PayloadError, never a half-filled event.
   *
   * @example adapter.normalizePush!(JSON.parse(rawBody.toString()), settings) // [{ type: 'TypeError', level: 'error', … }]
   */
  normalizePush?(body: unknown, settings: ConnectorSettings): NormalizedEvent[];

  /**
   * A body of the Sentry protocol (`POST /api/{project_id}/envelope/` or `/store/`), decompressed
   * and already authenticated by the service with the connector's DSN key. PayloadError for a body
   * that is no envelope (store: no event). docs/proactive.md, "Sentry SDKs".
   *
   * @example adapter.normalizeSentry!('envelope', body, settings) // { events: [{ external_id: '9f…', … }], skipped: { session: 1 }, eventId: '9f…' }
   */
  normalizeSentry?(format: 'envelope' | 'store', body: Buffer, settings: ConnectorSettings): SentryPush;
}

/** What one Sentry-protocol body carried. */
export interface SentryPush {
  /** The error events to store, each with the SDK's `event_id` as `external_id` (so SDK retries are stored once). */
  events: NormalizedEvent[];
  /** Items accepted but not stored, by envelope item type (`transaction`, `session`, `client_report`, `attachment`, …). */
  skipped: Record<string, number>;
  /** The id the answer names: the envelope header's `event_id`, else the first event's; null when there is none. */
  eventId: string | null;
}

/** Options every connector adapter accepts. */
export interface ConnectorAdapterOptions {
  /** Timeout of one call to the provider. */
  requestTimeoutMs?: number;
  /** Shortest interval between two polls of one connector. */
  minPollIntervalMs?: number;
}

export const connectorAdapterOptionKeys: Joi.PartialSchemaMap<ConnectorAdapterOptions> = {
  requestTimeoutMs: Joi.number().integer().min(100).max(120_000).default(10_000),
  minPollIntervalMs: Joi.number().integer().min(1_000).default(60_000),
};

export const connectorAdapterOptionsSchema = Joi.object<ConnectorAdapterOptions>(connectorAdapterOptionKeys);

/** Builds one settings issue. */
export function settingsIssue(code: SettingsIssueCode, field: string, message: string): SettingsIssue {
  return { code, field, message };
}

/**
 * Base of connector adapters: a vendor class sets `identifier`, `kind`, `secretNames` and
 * `optionsSchema`, lists required fields, and implements `test` and `poll` or the push pair.
 * The base checks required fields, unknown secrets and URLs.
 */
export abstract class AbstractConnectorAdapter<O extends ConnectorAdapterOptions = ConnectorAdapterOptions>
  extends AbstractAdapter<O>
  implements ConnectorAdapter
{
  static override optionsSchema: Joi.ObjectSchema<ConnectorAdapterOptions> = connectorAdapterOptionsSchema;

  abstract readonly kind: ConnectorKind;
  abstract readonly secretNames: readonly ConnectorSecretName[];
  /** Config fields that must be present, e.g. `['organization', 'project']`. */
  protected readonly requiredConfig: readonly string[] = [];
  /** Secrets that must be stored, e.g. `['api_key']`. */
  protected readonly requiredSecrets: readonly ConnectorSecretName[] = [];

  get polls(): boolean {
    return typeof (this as ConnectorAdapter).poll === 'function';
  }

  abstract test(settings: ConnectorSettings): Promise<ConnectorTestResult>;

  /** Vendor checks after the shared ones (regions, external id, …). */
  protected checkSettings(
    _config: Record<string, unknown>,
    _secrets: Record<string, string>,
    _context: SettingsContext,
  ): SettingsIssue[] {
    return [];
  }

  validateSettings(
    config: Record<string, unknown>,
    secrets: Record<string, string>,
    context: SettingsContext = {},
  ): SettingsIssue[] {
    const issues: SettingsIssue[] = [];
    for (const field of this.requiredConfig) {
      const v = config[field];
      if (v === undefined || v === null || v === '')
        issues.push(settingsIssue('missing_field', `config.${field}`, `${field} is required`));
    }
    const stored = new Set<string>(context.storedSecrets ?? []);
    for (const name of this.requiredSecrets) {
      if (!secrets[name] && !stored.has(name))
        issues.push(settingsIssue('missing_field', `secrets.${name}`, `secret ${name} is required`));
    }
    for (const name of Object.keys(secrets)) {
      if (!(this.secretNames as readonly string[]).includes(name)) {
        issues.push(
          settingsIssue('unknown_field', `secrets.${name}`, `${this.kind} connectors take no secret ${name}`),
        );
      }
    }
    return [...issues, ...this.checkSettings(config, secrets, context)];
  }

  /** An https URL (http allowed only when `allowHttp`); issues `invalid_url` or `insecure_url`. */
  protected checkUrl(field: string, value: unknown, allowHttp = false): SettingsIssue[] {
    if (value === undefined) return [];
    // Settings are JSON: a URL is written as a string, and nothing else is one.
    if (typeof value !== 'string') return [settingsIssue('invalid_url', field, `${field} is not a URL`)];
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      return [settingsIssue('invalid_url', field, `${field} is not a URL`)];
    }
    if (url.protocol === 'https:' || (allowHttp && url.protocol === 'http:')) return [];
    if (url.protocol === 'http:') return [settingsIssue('insecure_url', field, `${field} must use https`)];
    return [settingsIssue('invalid_url', field, `${field} must be an https URL`)];
  }

  /** Answer of `test` for a push-only connector: `receiving` once a push arrived, else `awaiting_delivery`. */
  protected pushOnlyTestResult(settings: ConnectorSettings): ConnectorTestResult {
    const last = settings.lastDeliveryAt ?? null;
    return last
      ? {
          ok: null,
          code: 'receiving',
          message: 'events are arriving',
          details: { last_delivery_at: last.toISOString() },
        }
      : {
          ok: null,
          code: 'awaiting_delivery',
          message: 'no event has arrived yet',
          details: { last_delivery_at: null },
        };
  }
}
