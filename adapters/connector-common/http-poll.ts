// Shared by the connectors that poll a vendor's HTTP API through the SSRF-guarded fetch
// (connector-error-tracker, connector-metrics): the poll cursor and the mapping of failures to
// connector test codes.
import { isIP } from 'node:net';
import { AdapterError, settingsIssue, type ConnectorTestCode, type SettingsIssue } from '../../core/contracts/index.js';
import { SafeFetchError, blockedReason } from '../../core/security/safe-fetch.js';

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
