import Joi from 'joi';
import {
  AbstractConnectorAdapter,
  AdapterError,
  adapterModule,
  settingsIssue,
  type AdapterDeps,
  type ConnectorSecretName,
  type ConnectorSettings,
  type ConnectorTestCode,
  type ConnectorTestResult,
  type NormalizedEvent,
  type PollResult,
  type SettingsContext,
  type SettingsIssue,
} from '../../core/contracts/index.js';
import { DEFAULT_FILTER_PATTERN, normalizeCloudLogEvent } from './normalize.js';
import { windowPollOptionKeys, type WindowPollOptions } from '../connector-common/http-poll.js';
import { lazyImport } from '../../core/kernel/lazy.js';

const loadCloudWatchLogs = lazyImport(() => import('@aws-sdk/client-cloudwatch-logs'));
const loadSts = lazyImport(() => import('@aws-sdk/client-sts'));

export interface CloudLogsOptions extends WindowPollOptions {
  /** STS endpoint (default: the SDK's regional endpoint). For tests and private endpoints. */
  stsEndpoint?: string;
  /** CloudWatch Logs endpoint (default: the SDK's regional endpoint). */
  logsEndpoint?: string;
  /** Events per FilterLogEvents page (the API takes at most 10000). */
  pageLimit: number;
  /** Lifetime of the assumed-role session. */
  sessionSeconds: number;
  /** Session name prefix in the customer's CloudTrail. */
  sessionName: string;
}

/** Poll state kept in connectors.cursor: window start (ms), and while a walk is unfinished its end and nextToken. */
interface PollState {
  since: number;
  until?: number;
  token?: string;
}

interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

const CONFIG_KEYS = ['region', 'role_arn', 'external_id', 'log_group_name', 'filter_pattern'];
const REGION = /^[a-z]{2}(-gov|-iso[a-z]?)?-[a-z]+-\d{1,2}$/;
const ROLE_ARN = /^arn:aws(-[a-z]+)*:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/;
const LOG_GROUP = /^[.\-_/#A-Za-z0-9]{1,512}$/;
const EXTERNAL_ID = /^[\w+=,.@:/-]{2,1224}$/;

/**
 * CloudWatch Logs, polled through a role the customer lets this service assume: STS
 * `AssumeRole` (RoleArn `role_arn`, ExternalId `external_id` — the one from
 * `GET /v1/connectors/setup/cloud_logs`, which the role's trust policy requires), then
 * `FilterLogEvents` on `log_group_name` with `filter_pattern` (default: error words), following
 * `nextToken`. The SDK clients are imported with the first call (lazyImport), not at module load.
 *
 * Config: `region`, `role_arn`, `external_id`, `log_group_name` (required), `filter_pattern`.
 * Secrets: `access_key_id` + `secret_access_key` (optional, together): the identity that assumes
 * the role; without them the service's own credentials (the SDK's default chain) assume it.
 */
export class CloudLogsConnectorAdapter extends AbstractConnectorAdapter<CloudLogsOptions> {
  static override identifier = 'connector-cloud-logs';
  static override optionsSchema = Joi.object<CloudLogsOptions>({
    ...windowPollOptionKeys,
    stsEndpoint: Joi.string().uri({ scheme: ['https', 'http'] }),
    logsEndpoint: Joi.string().uri({ scheme: ['https', 'http'] }),
    pageLimit: Joi.number().integer().min(1).max(10_000).default(1_000),
    sessionSeconds: Joi.number().integer().min(900).max(43_200).default(3_600),
    sessionName: Joi.string()
      .pattern(/^[\w+=,.@-]{2,40}$/)
      .default('patchwell-connector'),
  });

  readonly kind = 'cloud_logs' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['access_key_id', 'secret_access_key'];
  protected override readonly requiredConfig: readonly string[] = [
    'region',
    'role_arn',
    'external_id',
    'log_group_name',
  ];
  /** Assumed-role credentials by connector, role and external id, until shortly before they expire. */
  private readonly sessions = new Map<string, Credentials>();

  constructor(options: CloudLogsOptions, deps?: AdapterDeps) {
    super(options, deps);
  }

  protected override checkSettings(
    config: Record<string, unknown>,
    secrets: Record<string, string>,
    context: SettingsContext,
  ): SettingsIssue[] {
    const issues: SettingsIssue[] = [];
    const present = (v: unknown) => v !== undefined && v !== null && v !== '';
    if (present(config.region) && (typeof config.region !== 'string' || !REGION.test(config.region))) {
      issues.push(settingsIssue('invalid_region', 'config.region', 'region is not a cloud region such as eu-west-1'));
    }
    if (present(config.role_arn) && (typeof config.role_arn !== 'string' || !ROLE_ARN.test(config.role_arn))) {
      issues.push(
        settingsIssue(
          'invalid_value',
          'config.role_arn',
          'role_arn is a role ARN such as arn:aws:iam::123456789012:role/patchwell-logs',
        ),
      );
    }
    if (
      present(config.log_group_name) &&
      (typeof config.log_group_name !== 'string' || !LOG_GROUP.test(config.log_group_name))
    ) {
      issues.push(
        settingsIssue(
          'invalid_value',
          'config.log_group_name',
          'log_group_name is a log group name such as /aws/lambda/shop',
        ),
      );
    }
    if (
      config.filter_pattern !== undefined &&
      config.filter_pattern !== null &&
      (typeof config.filter_pattern !== 'string' || config.filter_pattern.length > 1024)
    ) {
      issues.push(
        settingsIssue(
          'invalid_value',
          'config.filter_pattern',
          'filter_pattern is a filter pattern of at most 1024 characters',
        ),
      );
    }
    if (present(config.external_id)) {
      if (typeof config.external_id !== 'string' || !EXTERNAL_ID.test(config.external_id)) {
        issues.push(
          settingsIssue('invalid_value', 'config.external_id', 'external_id is the id from the cloud-logs setup'),
        );
      } else if (context.expectedExternalId !== undefined && config.external_id !== context.expectedExternalId) {
        issues.push(
          settingsIssue(
            'external_id_mismatch',
            'config.external_id',
            'external_id must be the one GET /v1/connectors/setup/cloud_logs gave this workspace',
          ),
        );
      }
    }
    const stored = new Set<string>(context.storedSecrets ?? []);
    const has = (n: ConnectorSecretName) => (typeof secrets[n] === 'string' && secrets[n] !== '') || stored.has(n);
    if (has('access_key_id') !== has('secret_access_key')) {
      const missing = has('access_key_id') ? 'secret_access_key' : 'access_key_id';
      issues.push(
        settingsIssue('missing_field', `secrets.${missing}`, 'access_key_id and secret_access_key go together'),
      );
    }
    for (const key of Object.keys(config)) {
      if (!CONFIG_KEYS.includes(key))
        issues.push(settingsIssue('unknown_field', `config.${key}`, `cloud_logs connectors take no ${key}`));
    }
    return issues;
  }

  async test(settings: ConnectorSettings): Promise<ConnectorTestResult> {
    const bad = this.validateSettings(
      settings.config,
      {},
      { storedSecrets: Object.keys(settings.secrets) as ConnectorSecretName[] },
    );
    if (bad.length) return { ok: false, code: 'invalid_settings', message: bad[0].message, details: { errors: bad } };
    try {
      const now = Date.now();
      await this.filter(settings, { startTime: now - 15 * 60_000, endTime: now, limit: 1 });
      return {
        ok: true,
        code: 'ok',
        message: 'the role was assumed and the log group answered',
        details: { log_group_name: settings.config.log_group_name },
      };
    } catch (err) {
      const e = asAdapterError(err);
      return { ok: false, code: e.code as ConnectorTestCode, message: e.message, details: e.details };
    }
  }

  async poll(settings: ConnectorSettings, cursor: string | null): Promise<PollResult> {
    const interval = Math.max(this.options.pollIntervalMs, this.options.minPollIntervalMs ?? 0);
    const bad = this.validateSettings(
      settings.config,
      {},
      { storedSecrets: Object.keys(settings.secrets) as ConnectorSecretName[] },
    );
    if (bad.length) throw new AdapterError('invalid_settings', bad[0].message, { details: { errors: bad } });
    const now = Date.now();
    const state = parseState(cursor) ?? { since: now - this.options.initialLookbackMs };
    const until = state.until ?? now;
    let token = state.token ?? null;
    const events: NormalizedEvent[] = [];
    const nowIso = new Date(now).toISOString();
    for (let i = 0; i < this.options.maxPagesPerPoll; i++) {
      let page: { events?: Array<{ eventId?: string; timestamp?: number; message?: string }>; nextToken?: string };
      try {
        page = await this.filter(settings, {
          startTime: state.since,
          endTime: until,
          limit: this.options.pageLimit,
          nextToken: token ?? undefined,
        });
      } catch (err) {
        throw asAdapterError(err);
      }
      for (const raw of page.events ?? []) {
        const e = normalizeCloudLogEvent(raw, nowIso);
        if (e) events.push(e);
      }
      token = page.nextToken && page.nextToken !== token ? page.nextToken : null;
      if (!token)
        return { events, cursor: JSON.stringify({ since: until + 1 } satisfies PollState), nextPollInMs: interval };
    }
    return {
      events,
      cursor: JSON.stringify({ since: state.since, until, token: token ?? undefined } satisfies PollState),
      nextPollInMs: 1_000,
    };
  }

  /** One FilterLogEvents call with the assumed role's credentials. */
  private async filter(
    settings: ConnectorSettings,
    q: { startTime: number; endTime: number; limit: number; nextToken?: string },
  ) {
    const { CloudWatchLogsClient, FilterLogEventsCommand } = await loadCloudWatchLogs();
    const credentials = await this.assume(settings);
    const config = settings.config as { region: string; log_group_name: string; filter_pattern?: string };
    const client = new CloudWatchLogsClient({
      region: config.region,
      credentials,
      maxAttempts: 1,
      requestHandler: {
        requestTimeout: this.options.requestTimeoutMs,
        connectionTimeout: this.options.requestTimeoutMs,
      },
      ...(this.options.logsEndpoint ? { endpoint: this.options.logsEndpoint } : {}),
    });
    try {
      return await client.send(
        new FilterLogEventsCommand({
          logGroupName: config.log_group_name,
          startTime: q.startTime,
          endTime: q.endTime,
          limit: q.limit,
          filterPattern:
            typeof config.filter_pattern === 'string' && config.filter_pattern.trim()
              ? config.filter_pattern
              : DEFAULT_FILTER_PATTERN,
          ...(q.nextToken ? { nextToken: q.nextToken } : {}),
        }),
      );
    } finally {
      client.destroy();
    }
  }

  /** STS AssumeRole with the role ARN and the workspace's external id; cached until 5 minutes before expiry. */
  private async assume(settings: ConnectorSettings): Promise<Credentials> {
    const config = settings.config as { region: string; role_arn: string; external_id: string };
    const key = `${settings.connectorId}\n${config.role_arn}\n${config.external_id}\n${settings.secrets.access_key_id ?? ''}`;
    const cached = this.sessions.get(key);
    if (cached?.expiration && cached.expiration.getTime() - Date.now() > 5 * 60_000) return cached;
    const { STSClient, AssumeRoleCommand } = await loadSts();
    const { access_key_id: accessKeyId, secret_access_key: secretAccessKey } = settings.secrets;
    const client = new STSClient({
      region: config.region,
      maxAttempts: 1,
      requestHandler: {
        requestTimeout: this.options.requestTimeoutMs,
        connectionTimeout: this.options.requestTimeoutMs,
      },
      ...(accessKeyId && secretAccessKey ? { credentials: { accessKeyId, secretAccessKey } } : {}),
      ...(this.options.stsEndpoint ? { endpoint: this.options.stsEndpoint } : {}),
    });
    try {
      const out = await client.send(
        new AssumeRoleCommand({
          RoleArn: config.role_arn,
          ExternalId: config.external_id,
          RoleSessionName: `${this.options.sessionName}-${settings.connectorId}`
            .replace(/[^\w+=,.@-]/g, '-')
            .slice(0, 64),
          DurationSeconds: this.options.sessionSeconds,
        }),
      );
      const c = out.Credentials;
      if (!c?.AccessKeyId || !c.SecretAccessKey)
        throw new AdapterError('provider_error', 'the role was assumed without credentials', { retryable: true });
      const creds: Credentials = {
        accessKeyId: c.AccessKeyId,
        secretAccessKey: c.SecretAccessKey,
        sessionToken: c.SessionToken,
        expiration: c.Expiration,
      };
      if (this.sessions.size > 1_000) this.sessions.clear();
      this.sessions.set(key, creds);
      return creds;
    } catch (err) {
      throw asAdapterError(err, 'sts');
    } finally {
      client.destroy();
    }
  }
}

function parseState(cursor: string | null): PollState | null {
  if (!cursor) return null;
  try {
    const s = JSON.parse(cursor) as PollState;
    return typeof s.since === 'number' && Number.isFinite(s.since) ? s : null;
  } catch {
    return null;
  }
}

const UNAUTHORIZED = new Set([
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
  'UnrecognizedClientException',
  'ExpiredToken',
  'ExpiredTokenException',
  'IncompleteSignature',
  'CredentialsProviderError',
  'MissingAuthenticationToken',
]);
const FORBIDDEN = new Set(['AccessDenied', 'AccessDeniedException', 'RegionDisabledException']);
const THROTTLED = new Set(['Throttling', 'ThrottlingException', 'LimitExceededException', 'TooManyRequestsException']);

/** An SDK or network failure as an AdapterError with a connector test code. Never carries credentials. */
function asAdapterError(err: unknown, step: 'sts' | 'logs' = 'logs'): AdapterError {
  if (err instanceof AdapterError) return err;
  const e = err as { name?: string; message?: string; code?: string; $metadata?: { httpStatusCode?: number } };
  const name = e.name ?? 'Error';
  const status = e.$metadata?.httpStatusCode;
  const details: Record<string, unknown> = { step, error: name, ...(status ? { status } : {}) };
  const where = step === 'sts' ? 'assuming the role' : 'reading the log group';
  if (UNAUTHORIZED.has(name))
    return new AdapterError('unauthorized', `${where}: the credentials were refused (${name})`, { details });
  if (FORBIDDEN.has(name)) {
    const hint = step === 'sts' ? ' — does the role trust this service with the external id from the setup?' : '';
    return new AdapterError('forbidden', `${where}: access denied (${name})${hint}`, { details });
  }
  if (name === 'ResourceNotFoundException')
    return new AdapterError('not_found', 'the log group does not exist', { details });
  if (THROTTLED.has(name) || status === 429)
    return new AdapterError('rate_limited', `${where}: throttled (${name})`, { details, retryable: true });
  if (status && status >= 500)
    return new AdapterError('provider_error', `${where}: the service answered ${status}`, { details, retryable: true });
  if (status && status >= 400) return new AdapterError('provider_error', `${where}: refused (${name})`, { details });
  return new AdapterError('unreachable', `${where}: the service could not be reached (${e.code ?? name})`, {
    details,
    retryable: true,
    cause: err,
  });
}

export default adapterModule('connector', CloudLogsConnectorAdapter);
