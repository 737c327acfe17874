import Joi from 'joi';
import {
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
import { ERROR_STATUS_QUERY, normalizeLog } from './normalize.js';
import {
  HttpPollConnectorAdapter,
  asConnectorError,
  codeOfStatus,
  httpPollOptionKeys,
  unknownConfigIssues,
  type HttpPollOptions,
  type PollWindow,
  type WindowPage,
} from '../connector-common/http-poll.js';

/** `defaultBaseUrl` is the US1 site; pages are read `pageLimit` logs at a time. */
export interface MetricsOptions extends HttpPollOptions {
  /** Logs per page (the API takes at most 1000). */
  pageLimit: number;
}

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
export class MetricsConnectorAdapter extends HttpPollConnectorAdapter<MetricsOptions> {
  static override identifier = 'connector-metrics';
  static override optionsSchema = Joi.object<MetricsOptions>({
    ...httpPollOptionKeys('https://api.datadoghq.com'),
    pageLimit: Joi.number().integer().min(1).max(1000).default(500),
  });

  readonly kind = 'metrics_platform' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['api_key', 'application_key'];
  protected override readonly requiredSecrets: readonly ConnectorSecretName[] = ['api_key', 'application_key'];

  constructor(options: MetricsOptions, deps?: AdapterDeps) {
    super(options, deps, 16 * 1024 * 1024);
  }

  protected override checkSettings(
    config: Record<string, unknown>,
    _secrets: Record<string, string>,
    _context: SettingsContext,
  ): SettingsIssue[] {
    const issues = this.baseUrlIssues(config);
    if (
      config.query !== undefined &&
      config.query !== null &&
      (typeof config.query !== 'string' || config.query.length > 1000 || /[\r\n]/.test(config.query))
    ) {
      issues.push(
        settingsIssue('invalid_value', 'config.query', 'query is a log search of at most 1000 characters on one line'),
      );
    }
    issues.push(...unknownConfigIssues(this.kind, config, CONFIG_KEYS));
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
    if (!settings.secrets.api_key || !settings.secrets.application_key)
      throw new AdapterError('invalid_settings', 'api_key and application_key are required');
    return this.pollWindow(cursor, (window, page) => this.readPage(settings, window, page));
  }

  private async readPage(settings: ConnectorSettings, window: PollWindow, page: string | null): Promise<WindowPage> {
    let res: Response;
    try {
      res = await this.search(settings, {
        from: window.since,
        to: window.until,
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
    const events: NormalizedEvent[] = [];
    for (const item of body.data) {
      const e = normalizeLog(item, window.now.toISOString());
      if (e) events.push(e);
    }
    const after = body.meta?.page?.after;
    return { events, next: typeof after === 'string' && after !== '' && body.data.length > 0 ? after : null };
  }

  private search(
    settings: ConnectorSettings,
    q: { from: string; to: string; limit: number; cursor?: string | null },
  ): Promise<Response> {
    const base = this.baseUrl(settings);
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
