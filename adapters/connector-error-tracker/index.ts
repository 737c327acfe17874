import Joi from 'joi';
import {
  AdapterError,
  PayloadError,
  adapterModule,
  hmacSha256Hex,
  headerValue,
  safeEqual,
  settingsIssue,
  type AdapterDeps,
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
import { nextCursorOf, normalizeTrackerEvent, normalizeWebhookBody } from './normalize.js';
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

/** `defaultBaseUrl` is the hosted tracker; a page holds 100 events. */
export type ErrorTrackerOptions = HttpPollOptions;

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
export class ErrorTrackerConnectorAdapter extends HttpPollConnectorAdapter<ErrorTrackerOptions> {
  static override identifier = 'connector-error-tracker';
  static override optionsSchema = Joi.object<ErrorTrackerOptions>(httpPollOptionKeys('https://sentry.io'));

  readonly kind = 'error_tracker' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['client_secret', 'auth_token'];

  constructor(options: ErrorTrackerOptions, deps?: AdapterDeps) {
    super(options, deps, 8 * 1024 * 1024);
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
    issues.push(...this.baseUrlIssues(config));
    issues.push(...unknownConfigIssues(this.kind, config, ['organization', 'project', 'base_url']));
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
    const token = settings.secrets.auth_token;
    // Push-only (no auth token): nothing to read; look again rarely, in case a token is added.
    if (!token) return { events: [], cursor, nextPollInMs: Math.max(this.pollInterval, 6 * 3_600_000) };
    const { organization, project } = settings.config as { organization?: string; project?: string };
    if (!organization || !project)
      throw new AdapterError('invalid_settings', 'organization and project are required to poll');
    const path = `/api/0/projects/${encodeURIComponent(organization)}/${encodeURIComponent(project)}/events/`;
    return this.pollWindow(cursor, (window, page) => this.readPage(settings, path, window, page));
  }

  private async readPage(
    settings: ConnectorSettings,
    path: string,
    window: PollWindow,
    page: string | null,
  ): Promise<WindowPage> {
    const q = new URLSearchParams({ full: 'true', start: window.since, end: window.until });
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
    const since = new Date(window.since).getTime();
    const events: NormalizedEvent[] = [];
    for (const raw of body) {
      const e = normalizeTrackerEvent(raw, window.now.toISOString());
      if (e && new Date(e.occurred_at).getTime() >= since) events.push(e);
    }
    return { events, next: nextCursorOf(res.headers.get('link')) };
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
    return this.fetch(`${this.baseUrl(settings)}${path}`, {
      headers: { authorization: `Bearer ${settings.secrets.auth_token}`, accept: 'application/json' },
    });
  }
}

export default adapterModule('connector', ErrorTrackerConnectorAdapter);
