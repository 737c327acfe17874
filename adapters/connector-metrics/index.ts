import Joi from 'joi';
import {
  AbstractConnectorAdapter,
  AdapterError,
  adapterModule,
  connectorAdapterOptionKeys,
  settingsIssue,
  type AdapterDeps,
  type ConnectorAdapterOptions,
  type ConnectorSecretName,
  type ConnectorSettings,
  type ConnectorTestCode,
  type ConnectorTestResult,
  type NormalizedEvent,
  type PollResult,
  type SettingsContext,
  type SettingsIssue,
} from '../../core/contracts/index.js';
import { createSafeFetch, type SafeFetch } from '../../core/security/safe-fetch.js';
import { ERROR_STATUS_QUERY, normalizeLog } from './normalize.js';
import {
  asConnectorError,
  baseUrlIssues,
  codeOfStatus,
  parseWindowCursor,
  type WindowCursor,
} from '../connector-common/http-poll.js';

export interface MetricsOptions extends ConnectorAdapterOptions {
  /** API base URL used when a connector sets no `base_url` (the US1 site). */
  defaultBaseUrl: string;
  /** Interval between two polls of one connector when nothing is wrong. */
  pollIntervalMs: number;
  /** How far back the first poll of a connector reads. */
  initialLookbackMs: number;
  /** Logs per page (the API takes at most 1000). */
  pageLimit: number;
  /** Pages read in one poll; the walk continues at the next poll beyond it. */
  maxPagesPerPoll: number;
  /** Accept http base URLs (tests against a local peer). */
  allowHttp: boolean;
}

/** Poll state kept in connectors.cursor: the window start, and while a walk is unfinished its end and page cursor. */
type PollState = WindowCursor;

const CONFIG_KEYS = ['base_url', 'query'];
const SEARCH_PATH = '/api/v2/logs/events/search';

/**
 * A Datadog-style logs platform, polled: `POST {base_url}/api/v2/logs/events/search` with
 * `DD-API-KEY` and `DD-APPLICATION-KEY`, body `{filter: {query, from, to}, page: {cursor, limit},
 * sort: 'timestamp'}`, following `meta.page.after`. Only error-level logs are asked for and kept.
 *
 * Config: `base_url` (the site's API URL, https; default the US1 site), `query` (optional log
 * search narrowing the error logs, e.g. `service:shop env:prod`). Secrets: `api_key`,
 * `application_key` (both required).
 */
export class MetricsConnectorAdapter extends AbstractConnectorAdapter<MetricsOptions> {
  static override identifier = 'connector-metrics';
  static override optionsSchema = Joi.object<MetricsOptions>({
    ...connectorAdapterOptionKeys,
    defaultBaseUrl: Joi.string()
      .uri({ scheme: ['https', 'http'] })
      .default('https://api.datadoghq.com'),
    pollIntervalMs: Joi.number().integer().min(1_000).default(60_000),
    initialLookbackMs: Joi.number()
      .integer()
      .min(0)
      .max(30 * 86_400_000)
      .default(3_600_000),
    pageLimit: Joi.number().integer().min(1).max(1000).default(500),
    maxPagesPerPoll: Joi.number().integer().min(1).max(100).default(10),
    allowHttp: Joi.boolean().default(false),
  });

  readonly kind = 'metrics_platform' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['api_key', 'application_key'];
  protected override readonly requiredSecrets: readonly ConnectorSecretName[] = ['api_key', 'application_key'];
  private readonly fetch: SafeFetch;
  private readonly allowLoopback: boolean;

  constructor(options: MetricsOptions, deps?: AdapterDeps) {
    super(options, deps);
    const config = deps?.config as { security?: { allowLoopbackFetch?: boolean } } | undefined;
    this.allowLoopback = config?.security?.allowLoopbackFetch === true;
    this.fetch = createSafeFetch({
      allowLoopback: this.allowLoopback,
      timeoutMs: options.requestTimeoutMs,
      maxBytes: 16 * 1024 * 1024,
    });
  }

  protected override checkSettings(
    config: Record<string, unknown>,
    _secrets: Record<string, string>,
    _context: SettingsContext,
  ): SettingsIssue[] {
    const issues = baseUrlIssues(
      config.base_url,
      (url) => this.checkUrl('config.base_url', url, this.options.allowHttp),
      this.allowLoopback,
    );
    if (
      config.query !== undefined &&
      config.query !== null &&
      (typeof config.query !== 'string' || config.query.length > 1000 || /[\r\n]/.test(config.query))
    ) {
      issues.push(
        settingsIssue('invalid_value', 'config.query', 'query is a log search of at most 1000 characters on one line'),
      );
    }
    for (const key of Object.keys(config)) {
      if (!CONFIG_KEYS.includes(key))
        issues.push(settingsIssue('unknown_field', `config.${key}`, `metrics_platform connectors take no ${key}`));
    }
    return issues;
  }

  async test(settings: ConnectorSettings): Promise<ConnectorTestResult> {
    if (!settings.secrets.api_key || !settings.secrets.application_key) {
      return { ok: false, code: 'invalid_settings', message: 'api_key and application_key are required', details: {} };
    }
    const now = Date.now();
    try {
      const res = await this.search(settings, {
        from: new Date(now - 15 * 60_000).toISOString(),
        to: new Date(now).toISOString(),
        limit: 1,
      });
      if (res.ok) return { ok: true, code: 'ok', message: 'the logs search answered', details: { status: res.status } };
      return {
        ok: false,
        code: codeOfStatus(res.status),
        message: `the logs search answered ${res.status}`,
        details: { status: res.status },
      };
    } catch (err) {
      const e = asConnectorError(err, 'the logs search could not be reached');
      return { ok: false, code: e.code as ConnectorTestCode, message: e.message, details: e.details };
    }
  }

  async poll(settings: ConnectorSettings, cursor: string | null): Promise<PollResult> {
    const interval = Math.max(this.options.pollIntervalMs, this.options.minPollIntervalMs ?? 0);
    if (!settings.secrets.api_key || !settings.secrets.application_key)
      throw new AdapterError('invalid_settings', 'api_key and application_key are required');
    const now = new Date();
    const state = parseWindowCursor(cursor) ?? {
      since: new Date(now.getTime() - this.options.initialLookbackMs).toISOString(),
    };
    const until = state.until ?? now.toISOString();
    let page = state.page ?? null;
    const events: NormalizedEvent[] = [];
    for (let i = 0; i < this.options.maxPagesPerPoll; i++) {
      let res: Response;
      try {
        res = await this.search(settings, {
          from: state.since,
          to: until,
          limit: this.options.pageLimit,
          cursor: page,
        });
      } catch (err) {
        throw asConnectorError(err, 'the logs search could not be reached');
      }
      if (!res.ok) {
        const retryAfter = Number(res.headers.get('retry-after') ?? res.headers.get('x-ratelimit-reset'));
        const details: Record<string, unknown> = { status: res.status };
        if (Number.isFinite(retryAfter) && retryAfter > 0) details.retry_after_s = retryAfter;
        throw new AdapterError(codeOfStatus(res.status), `the logs search answered ${res.status}`, {
          details,
          retryable: res.status >= 500 || res.status === 429,
        });
      }
      const body = (await res.json().catch(() => null)) as {
        data?: unknown;
        meta?: { page?: { after?: unknown } };
      } | null;
      if (!body || !Array.isArray(body.data))
        throw new AdapterError('provider_error', 'the logs search answered without data', { retryable: true });
      for (const item of body.data) {
        const e = normalizeLog(item, now.toISOString());
        if (e) events.push(e);
      }
      const after = body.meta?.page?.after;
      page = typeof after === 'string' && after !== '' && body.data.length > 0 ? after : null;
      if (!page)
        return { events, cursor: JSON.stringify({ since: until } satisfies PollState), nextPollInMs: interval };
    }
    // More pages than one poll reads: continue the same window soon.
    return {
      events,
      cursor: JSON.stringify({ since: state.since, until, page: page ?? undefined } satisfies PollState),
      nextPollInMs: 1_000,
    };
  }

  private search(
    settings: ConnectorSettings,
    q: { from: string; to: string; limit: number; cursor?: string | null },
  ): Promise<Response> {
    const base = String(settings.config.base_url ?? this.options.defaultBaseUrl).replace(/\/+$/, '');
    const extra =
      typeof settings.config.query === 'string' && settings.config.query.trim() ? settings.config.query.trim() : '';
    const body = {
      filter: { query: extra ? `${ERROR_STATUS_QUERY} (${extra})` : ERROR_STATUS_QUERY, from: q.from, to: q.to },
      page: { limit: q.limit, ...(q.cursor ? { cursor: q.cursor } : {}) },
      sort: 'timestamp',
    };
    return this.fetch(`${base}${SEARCH_PATH}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'dd-api-key': settings.secrets.api_key!,
        'dd-application-key': settings.secrets.application_key!,
      },
      body: JSON.stringify(body),
    });
  }
}

export default adapterModule('connector', MetricsConnectorAdapter);
