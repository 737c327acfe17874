// Shared by the connectors that poll a vendor's HTTP API through the SSRF-guarded fetch
// (connector-error-tracker, connector-metrics): their options, the walk of a time window page by
// page, the poll cursor and the mapping of failures to connector test codes. connector-cloud-logs
// shares only the window options.
import { isIP } from 'node:net';
import Joi from 'joi';
import {
  AbstractConnectorAdapter,
  AdapterError,
  connectorAdapterOptionKeys,
  settingsIssue,
  type AdapterDeps,
  type ConnectorAdapterOptions,
  type ConnectorSettings,
  type ConnectorTestCode,
  type NormalizedEvent,
  type PollResult,
  type SettingsIssue,
} from '../../core/contracts/index.js';
import { SafeFetchError, blockedReason, createSafeFetch, type SafeFetch } from '../../core/security/safe-fetch.js';

/** Options of every connector that polls a time window page by page (cloud-logs too). */
export interface WindowPollOptions extends ConnectorAdapterOptions {
  /** Interval between two polls of one connector when nothing is wrong. */
  pollIntervalMs: number;
  /** How far back the first poll of a connector reads. */
  initialLookbackMs: number;
  /** Pages read in one poll; the walk continues at the next poll beyond it. */
  maxPagesPerPoll: number;
}

/** Joi keys of WindowPollOptions, for a vendor schema to spread. */
export const windowPollOptionKeys: Joi.PartialSchemaMap<WindowPollOptions> = {
  ...connectorAdapterOptionKeys,
  pollIntervalMs: Joi.number().integer().min(1_000).default(60_000),
  initialLookbackMs: Joi.number()
    .integer()
    .min(0)
    .max(30 * 86_400_000)
    .default(3_600_000),
  maxPagesPerPoll: Joi.number().integer().min(1).max(100).default(10),
};

export interface HttpPollOptions extends WindowPollOptions {
  /** Base URL used when a connector sets no `base_url`. */
  defaultBaseUrl: string;
  /** Accept http base URLs (a vendor on a private network, tests against a local peer). */
  allowHttp: boolean;
}

/** Joi keys of HttpPollOptions, for a vendor schema to spread. */
export function httpPollOptionKeys(defaultBaseUrl: string): Joi.PartialSchemaMap<HttpPollOptions> {
  return {
    ...windowPollOptionKeys,
    defaultBaseUrl: Joi.string()
      .uri({ scheme: ['https', 'http'] })
      .default(defaultBaseUrl),
    allowHttp: Joi.boolean().default(false),
  };
}

/** The time window a poll walks (ISO 8601), and the time the poll started. */
export interface PollWindow {
  since: string;
  until: string;
  now: Date;
}

/** One page read: the events kept, and the vendor's token of the next page (null after the last). */
export interface WindowPage {
  events: NormalizedEvent[];
  next: string | null;
}

/**
 * A connector that polls a vendor's HTTP API: the fetch (SSRF-guarded, loopback only when the
 * config allows it), `config.base_url`, and the walk of a time window page by page.
 */
export abstract class HttpPollConnectorAdapter<O extends HttpPollOptions> extends AbstractConnectorAdapter<O> {
  protected readonly fetch: SafeFetch;
  protected readonly allowLoopback: boolean;

  constructor(options: O, deps: AdapterDeps | undefined, maxResponseBytes: number) {
    super(options, deps);
    const config = deps?.config as { security?: { allowLoopbackFetch?: boolean } } | undefined;
    this.allowLoopback = config?.security?.allowLoopbackFetch === true;
    this.fetch = createSafeFetch({
      allowLoopback: this.allowLoopback,
      timeoutMs: options.requestTimeoutMs,
      maxBytes: maxResponseBytes,
    });
  }

  /** Interval to the next poll when nothing is wrong (never under the operator's minimum). */
  protected get pollInterval(): number {
    return Math.max(this.options.pollIntervalMs, this.options.minPollIntervalMs ?? 0);
  }

  /** Issues of the connector's optional `config.base_url`. */
  protected baseUrlIssues(config: Record<string, unknown>): SettingsIssue[] {
    return baseUrlIssues(
      config.base_url,
      (url) => this.checkUrl('config.base_url', url, this.options.allowHttp),
      this.allowLoopback,
    );
  }

  /** The connector's base URL, or the default, without a trailing slash. */
  protected baseUrl(settings: ConnectorSettings): string {
    // settingsIssues refused a base_url that is not a string (baseUrlIssues).
    const base = settings.config.base_url;
    return (typeof base === 'string' ? base : this.options.defaultBaseUrl).replace(/\/+$/, '');
  }

  /**
   * Reads the window the cursor names (the first poll: the last `initialLookbackMs`) page by
   * page; after `maxPagesPerPoll` pages the cursor keeps the window and page, and the walk
   * continues at a poll soon after.
   */
  protected async pollWindow(
    cursor: string | null,
    readPage: (window: PollWindow, page: string | null) => Promise<WindowPage>,
  ): Promise<PollResult> {
    const now = new Date();
    const state = parseWindowCursor(cursor) ?? {
      since: new Date(now.getTime() - this.options.initialLookbackMs).toISOString(),
    };
    const window: PollWindow = { since: state.since, until: state.until ?? now.toISOString(), now };
    let page = state.page ?? null;
    const events: NormalizedEvent[] = [];
    for (let i = 0; i < this.options.maxPagesPerPoll; i++) {
      const read = await readPage(window, page);
      events.push(...read.events);
      page = read.next;
      if (!page)
        return {
          events,
          cursor: JSON.stringify({ since: window.until } satisfies WindowCursor),
          nextPollInMs: this.pollInterval,
        };
    }
    return {
      events,
      cursor: JSON.stringify({
        since: window.since,
        until: window.until,
        page: page ?? undefined,
      } satisfies WindowCursor),
      nextPollInMs: 1_000,
    };
  }
}

/** Issues of config keys other than `known`. */
export function unknownConfigIssues(
  kind: string,
  config: Record<string, unknown>,
  known: readonly string[],
): SettingsIssue[] {
  return Object.keys(config)
    .filter((key) => !known.includes(key))
    .map((key) => settingsIssue('unknown_field', `config.${key}`, `${kind} connectors take no ${key}`));
}

/** A poll cursor: the time window being walked (ISO 8601) and the vendor's page token within it. */
export interface WindowCursor {
  since: string;
  until?: string;
  page?: string;
}

/** The cursor stored by the last poll, or null when absent or unreadable (the adapter starts over). */
export function parseWindowCursor(cursor: string | null): WindowCursor | null {
  if (!cursor) return null;
  try {
    const s = JSON.parse(cursor) as WindowCursor;
    return typeof s.since === 'string' && !Number.isNaN(new Date(s.since).getTime()) ? s : null;
  } catch {
    return null;
  }
}

/**
 * Issues of an optional `config.base_url`: `checkUrl` (the adapter's scheme check) first, then a
 * literal private or reserved IP address (host names are checked when fetched).
 */
export function baseUrlIssues(
  value: unknown,
  checkUrl: (url: string) => SettingsIssue[],
  allowLoopback: boolean,
): SettingsIssue[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'string') return [settingsIssue('invalid_url', 'config.base_url', 'base_url is not a URL')];
  const found = checkUrl(value);
  if (found.length) return found;
  const host = new URL(value).hostname.replace(/^\[|\]$/g, '');
  return isIP(host) && blockedReason(host, { allowLoopback })
    ? [settingsIssue('blocked_address', 'config.base_url', 'base_url points at a private or reserved address')]
    : [];
}

/** The connector test code of a vendor's HTTP error status. */
export function codeOfStatus(status: number): ConnectorTestCode {
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 429) return 'rate_limited';
  return 'provider_error';
}

/** Any failure of a call as an AdapterError with a connector test code; network failures are retryable. */
export function asConnectorError(err: unknown, unreachable: string): AdapterError {
  if (err instanceof AdapterError) return err;
  if (err instanceof SafeFetchError) {
    const code: ConnectorTestCode =
      err.code === 'blocked_address'
        ? 'blocked_address'
        : err.code === 'insecure_url' || err.code === 'invalid_url'
          ? 'invalid_settings'
          : 'unreachable';
    return new AdapterError(code, err.message, {
      details: { reason: err.code },
      retryable: code === 'unreachable',
      cause: err,
    });
  }
  return new AdapterError('unreachable', (err as Error).message ?? unreachable, { retryable: true, cause: err });
}
