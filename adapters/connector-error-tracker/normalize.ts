import type { NormalizedEvent } from '../../core/contracts/index.js';
import { isObj, str } from '../connector-common/normalize.js';
import { dateOf, levelOf, normalizeSentryEvent } from '../connector-common/sentry-event.js';

/**
 * Sentry-compatible payloads → NormalizedEvent. Three shapes arrive: a full event (webhook
 * `event_alert` → `data.event`, `error` → `data.error`, API `GET …/events/?full=true` items), and
 * an issue (webhook `issue` → `data.issue`). Every event of one tracker issue carries the
 * fingerprint `error-tracker-issue:<issue id>`, so webhook and polled events of one issue fall
 * into one error group (see docs/proactive.md, "connector-error-tracker"). The event itself is read
 * by the normalizer shared with the Sentry SDK ingest (connector-common/sentry-event.ts).
 */

/**
 * One full tracker event; null when it says nothing usable (no message, no exception). A custom
 * fingerprint wins; else the tracker's issue id groups the event.
 */
export function normalizeTrackerEvent(e: unknown, now: string): NormalizedEvent | null {
  const out = normalizeSentryEvent(e, now);
  if (!out || !isObj(e)) return null;
  const issueId = str(e.issue_id, 100) ?? str(e.groupID, 100) ?? str(e.group_id, 100);
  if (!out.fingerprint && issueId) out.fingerprint = `error-tracker-issue:${issueId}`;
  return out;
}

/** A tracker issue (webhook `issue`, action `created` or `unresolved`) as one event of its group. */
export function normalizeTrackerIssue(issue: unknown, action: string, now: string): NormalizedEvent | null {
  if (!isObj(issue)) return null;
  const id = str(issue.id, 100);
  if (!id) return null;
  const metadata = isObj(issue.metadata) ? issue.metadata : {};
  const message = str(metadata.value) ?? str(issue.title) ?? '';
  const occurred = dateOf(issue.lastSeen) ?? dateOf(issue.firstSeen) ?? now;
  const out: NormalizedEvent = {
    external_id: action === 'created' ? `issue:${id}` : `issue:${id}:${action}:${occurred}`,
    type: str(metadata.type, 200) ?? 'Error',
    message,
    level: levelOf(issue.level),
    occurred_at: occurred,
    fingerprint: `error-tracker-issue:${id}`,
  };
  const file = str(metadata.filename, 1000);
  if (file)
    out.frames = [
      { file, ...(str(metadata.function, 300) ? { function: str(metadata.function, 300)! } : {}), in_app: true },
    ];
  return out;
}

/**
 * A webhook body (after its signature was checked) → events. Resources without error events
 * (installation, metric_alert, comment) and issue actions other than created/unresolved give [].
 */
export function normalizeWebhookBody(body: unknown, now: string): NormalizedEvent[] | null {
  if (!isObj(body) || !isObj(body.data)) return null;
  const data = body.data;
  const action = typeof body.action === 'string' ? body.action : '';
  if (isObj(data.event)) return [normalizeTrackerEvent(data.event, now)].filter((e): e is NormalizedEvent => !!e);
  if (isObj(data.error)) return [normalizeTrackerEvent(data.error, now)].filter((e): e is NormalizedEvent => !!e);
  if (isObj(data.issue)) {
    if (action !== 'created' && action !== 'unresolved') return [];
    return [normalizeTrackerIssue(data.issue, action, now)].filter((e): e is NormalizedEvent => !!e);
  }
  return [];
}

/** The `next` cursor of a Link header (`<…>; rel="next"; results="true"; cursor="0:100:0"`), or null at the end. */
export function nextCursorOf(link: string | null): string | null {
  if (!link) return null;
  for (const part of link.split(/,(?=\s*<)/)) {
    if (!/rel="?next"?/.test(part)) continue;
    if (/results="?false"?/.test(part)) return null;
    const m = /cursor="([^"]+)"/.exec(part);
    if (m) return m[1];
    const url = /<([^>]+)>/.exec(part);
    if (url) {
      try {
        return new URL(url[1]).searchParams.get('cursor');
      } catch {
        return null;
      }
    }
  }
  return null;
}
