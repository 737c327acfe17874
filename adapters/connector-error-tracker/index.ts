import Joi from 'joi';
import {
  AbstractConnectorAdapter,
  AdapterError,
  PayloadError,
  adapterModule,
  connectorAdapterOptionKeys,
  hmacSha256Hex,
  headerValue,
  safeEqual,
  settingsIssue,
  type AdapterDeps,
  type ConnectorAdapterOptions,
  type ConnectorSecretName,
  type ConnectorSettings,
  type ConnectorTestCode,
  type ConnectorTestResult,
  type NormalizedEvent,
  type PollResult,
  type RawHeaders,
  type SettingsContext,
  type SettingsIssue,
} from '../../core/contracts/index.js';
import { createSafeFetch, type SafeFetch } from '../../core/security/safe-fetch.js';
import { nextCursorOf, normalizeTrackerEvent, normalizeWebhookBody } from './normalize.js';
import {
  asConnectorError,
  baseUrlIssues,
  codeOfStatus,
  parseWindowCursor,
  type WindowCursor,
} from '../connector-common/http-poll.js';

export interface ErrorTrackerOptions extends ConnectorAdapterOptions {
  /** Base URL used when a connector sets none (the hosted tracker). */
  defaultBaseUrl: string;
  /** Interval between two polls of one connector when nothing is wrong. */
  pollIntervalMs: number;
  /** How far back the first poll of a connector reads. */
  initialLookbackMs: number;
  /** Pages of 100 events read in one poll; the walk continues at the next poll beyond it. */
  maxPagesPerPoll: number;
  /** Accept http base URLs (a tracker on a private network, tests against a local peer). */
  allowHttp: boolean;
}

/** Poll state kept in connectors.cursor: the window start, and while a walk is unfinished its end and page. */
type PollState = WindowCursor;

const SLUG = /^[a-z0-9][a-z0-9_.-]{0,99}$/i;

/**
 * A Sentry-compatible error tracker. Pushes: the integration webhook at
 * `POST /v1/webhooks/error-tracker/{connectorId}`, signed with `Sentry-Hook-Signature` = hex
 * HMAC-SHA256 of the raw body keyed with the integration's client secret (`client_secret`).
 * Polling, with an `auth_token`: `GET {base_url}/api/0/projects/{organization}/{project}/events/
 * ?full=true&start&end`, newest first, following the `Link` header's `next` cursor.
 *
 * Config: `organization`, `project` (slugs; required with an auth token), `base_url` (https,
 * default the hosted tracker). Secrets: `client_secret` and/or `auth_token` (one at least).
 */
export class ErrorTrackerConnectorAdapter extends AbstractConnectorAdapter<ErrorTrackerOptions> {
  static override identifier = 'connector-error-tracker';
  static override optionsSchema = Joi.object<ErrorTrackerOptions>({
    ...connectorAdapterOptionKeys,
    defaultBaseUrl: Joi.string()
      .uri({ scheme: ['https', 'http'] })
      .default('https://sentry.io'),
    pollIntervalMs: Joi.number().integer().min(1_000).default(60_000),
    initialLookbackMs: Joi.number()
      .integer()
      .min(0)
      .max(30 * 86_400_000)
      .default(3_600_000),
    maxPagesPerPoll: Joi.number().integer().min(1).max(100).default(10),
    allowHttp: Joi.boolean().default(false),
  });

  readonly kind = 'error_tracker' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['client_secret', 'auth_token'];
  private readonly fetch: SafeFetch;
  private readonly allowLoopback: boolean;

  constructor(options: ErrorTrackerOptions, deps?: AdapterDeps) {
    super(options, deps);
    const config = deps?.config as { security?: { allowLoopbackFetch?: boolean } } | undefined;
    this.allowLoopback = config?.security?.allowLoopbackFetch === true;
    this.fetch = createSafeFetch({
      allowLoopback: this.allowLoopback,
      timeoutMs: options.requestTimeoutMs,
      maxBytes: 8 * 1024 * 1024,
    });
  }

  protected override checkSettings(
    config: Record<string, unknown>,
    secrets: Record<string, string>,
    context: SettingsContext,
  ): SettingsIssue[] {
    const issues: SettingsIssue[] = [];
    const stored = new Set<string>(context.storedSecrets ?? []);
    const has = (n: ConnectorSecretName) => (typeof secrets[n] === 'string' && secrets[n] !== '') || stored.has(n);
    if (!has('client_secret') && !has('auth_token')) {
      issues.push(
        settingsIssue(
          'missing_field',
          'secrets.client_secret',
          'a client_secret (webhooks) or an auth_token (polling) is required',
        ),
      );
    }
    for (const field of ['organization', 'project'] as const) {
      const v = config[field];
      if (v === undefined || v === null || v === '') {
        if (has('auth_token'))
          issues.push(
            settingsIssue('missing_field', `config.${field}`, `${field} is required to poll with an auth token`),
          );
      } else if (typeof v !== 'string' || !SLUG.test(v))
        issues.push(settingsIssue('invalid_value', `config.${field}`, `${field} is a slug (letters, digits, - _ .)`));
    }
    issues.push(
      ...baseUrlIssues(
        config.base_url,
        (url) => this.checkUrl('config.base_url', url, this.options.allowHttp),
        this.allowLoopback,
      ),
    );
    for (const key of Object.keys(config)) {
      if (!['organization', 'project', 'base_url'].includes(key))
        issues.push(settingsIssue('unknown_field', `config.${key}`, `error_tracker connectors take no ${key}`));
    }
    return issues;
  }

  async test(settings: ConnectorSettings): Promise<ConnectorTestResult> {
    const token = settings.secrets.auth_token;
    if (!token) return this.pushOnlyTestResult(settings);
    const { organization, project } = settings.config as { organization?: string; project?: string };
    if (!organization || !project)
      return {
        ok: false,
        code: 'invalid_settings',
        message: 'organization and project are required to poll',
        details: {},
      };
    try {
      const res = await this.get(
        settings,
        `/api/0/projects/${encodeURIComponent(organization)}/${encodeURIComponent(project)}/`,
      );
      if (res.ok) {
        const body = (await res.json().catch(() => ({}))) as { slug?: string; name?: string };
        return {
          ok: true,
          code: 'ok',
          message: 'the tracker answered with the project',
          details: { status: res.status, project: body.slug ?? project },
        };
      }
      const code = codeOfStatus(res.status);
      return { ok: false, code, message: `the tracker answered ${res.status}`, details: { status: res.status } };
    } catch (err) {
      const e = asConnectorError(err, 'the tracker could not be reached');
      return { ok: false, code: e.code as ConnectorTestCode, message: e.message, details: e.details };
    }
  }

  async poll(settings: ConnectorSettings, cursor: string | null): Promise<PollResult> {
    const interval = Math.max(this.options.pollIntervalMs, this.options.minPollIntervalMs ?? 0);
    const token = settings.secrets.auth_token;
    // Push-only (no auth token): nothing to read; look again rarely, in case a token is added.
    if (!token) return { events: [], cursor, nextPollInMs: Math.max(interval, 6 * 3_600_000) };
    const { organization, project } = settings.config as { organization?: string; project?: string };
    if (!organization || !project)
      throw new AdapterError('invalid_settings', 'organization and project are required to poll');
    const now = new Date();
    const state = parseWindowCursor(cursor) ?? {
      since: new Date(now.getTime() - this.options.initialLookbackMs).toISOString(),
    };
    const until = state.until ?? now.toISOString();
    let page = state.page ?? null;
    const since = new Date(state.since).getTime();
    const events: NormalizedEvent[] = [];
    const path = `/api/0/projects/${encodeURIComponent(organization)}/${encodeURIComponent(project)}/events/`;
    for (let i = 0; i < this.options.maxPagesPerPoll; i++) {
      const q = new URLSearchParams({ full: 'true', start: state.since, end: until });
      if (page) q.set('cursor', page);
      let res: Response;
      try {
        res = await this.get(settings, `${path}?${q.toString()}`);
      } catch (err) {
        throw asConnectorError(err, 'the tracker could not be reached');
      }
      if (!res.ok)
        throw new AdapterError(codeOfStatus(res.status), `the tracker answered ${res.status}`, {
          details: { status: res.status },
          retryable: res.status >= 500 || res.status === 429,
        });
      const body = (await res.json().catch(() => null)) as unknown;
      if (!Array.isArray(body))
        throw new AdapterError('provider_error', 'the tracker answered something other than a list of events', {
          retryable: true,
        });
      for (const raw of body) {
        const e = normalizeTrackerEvent(raw, now.toISOString());
        if (e && new Date(e.occurred_at).getTime() >= since) events.push(e);
      }
      page = nextCursorOf(res.headers.get('link'));
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

  verifyPush(headers: RawHeaders, rawBody: Buffer, settings: ConnectorSettings): boolean {
    const secret = settings.secrets.client_secret;
    const given = (headerValue(headers, 'sentry-hook-signature') ?? '').trim().toLowerCase();
    if (!secret || !/^[0-9a-f]{64}$/.test(given)) return false;
    return safeEqual(given, hmacSha256Hex(secret, rawBody));
  }

  normalizePush(body: unknown): NormalizedEvent[] {
    const events = normalizeWebhookBody(body, new Date().toISOString());
    if (events === null) throw new PayloadError('an error-tracker delivery is an object with data');
    return events;
  }

  private get(settings: ConnectorSettings, path: string): Promise<Response> {
    const base = String(settings.config.base_url ?? this.options.defaultBaseUrl).replace(/\/+$/, '');
    return this.fetch(`${base}${path}`, {
      headers: { authorization: `Bearer ${settings.secrets.auth_token}`, accept: 'application/json' },
    });
  }
}

export default adapterModule('connector', ErrorTrackerConnectorAdapter);
