// Bodies of the Sentry protocol (`POST /api/{project_id}/envelope/` and `/store/`) → SentryPush.
// The service has authenticated and decompressed the body; docs/proactive.md, "Sentry SDK events".
import { parseEnvelope } from '@sentry/core';
import { PayloadError, type NormalizedEvent, type SentryPush } from '../../core/contracts/index.js';
import { isObj, str } from '../connector-common/normalize.js';
import { eventIdOf, normalizeSentryEvent } from '../connector-common/sentry-event.js';

export interface SentryLimits {
  /** Most error events one body may carry. */
  maxEvents: number;
  /** Most items (of any type) one envelope may carry. */
  maxItems: number;
}

const decoder = new TextDecoder();

/** An event payload: parsed JSON (newline-terminated item) or bytes (length-prefixed item, as the Python SDK sends). */
function eventPayload(payload: unknown, index: number): Record<string, unknown> {
  let value = payload;
  if (payload instanceof Uint8Array) {
    try {
      value = JSON.parse(decoder.decode(payload));
    } catch {
      throw new PayloadError(`envelope item ${index} (event): the payload is not JSON`);
    }
  }
  if (!isObj(value)) throw new PayloadError(`envelope item ${index} (event): the payload is not a JSON object`);
  return value;
}

/**
 * Error events of an envelope; every other item type (transaction, session, client_report, attachment, span,
 * profile, replay_*, check_in, log, feedback, …) is counted in `skipped` by type, not stored.
 */
export function readEnvelope(body: Buffer, limits: SentryLimits, now: string): SentryPush {
  let header: unknown;
  let items: Array<[unknown, unknown]>;
  try {
    // Throws on a header, an item header or a newline-terminated payload that is not JSON.
    [header, items] = parseEnvelope(body);
  } catch (err) {
    throw new PayloadError(`not a Sentry envelope: ${err instanceof Error ? err.message : String(err)}`.slice(0, 300));
  }
  if (!isObj(header)) throw new PayloadError('not a Sentry envelope: the header is not a JSON object');
  if (items.length > limits.maxItems) throw new PayloadError(`at most ${limits.maxItems} items per envelope`);
  const events: NormalizedEvent[] = [];
  const skipped: Record<string, number> = {};
  const skip = (type: string) => (skipped[type] = (skipped[type] ?? 0) + 1);
  let eventItems = 0;
  items.forEach(([itemHeader, payload], i) => {
    const type = isObj(itemHeader) ? str(itemHeader.type, 50) : undefined;
    if (!type) throw new PayloadError(`envelope item ${i}: the item header has no type`);
    if (type !== 'event') return void skip(type);
    if (++eventItems > limits.maxEvents) throw new PayloadError(`at most ${limits.maxEvents} events per envelope`);
    const raw = eventPayload(payload, i);
    if (raw.type === 'transaction') return void skip('transaction');
    const event = normalizeSentryEvent(raw, now, { preferUrlPaths: true });
    // An event that names neither an exception nor a message has nothing to group: counted, not stored.
    if (event) events.push(event);
    else skip('event');
  });
  const eventId = eventIdOf(header.event_id) ?? events.find((e) => e.external_id)?.external_id ?? null;
  return { events, skipped, eventId };
}

/** The body of `/store/`: one event as JSON. */
export function readStore(body: Buffer, now: string): SentryPush {
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    throw new PayloadError('a store body is one event as JSON: the body is not JSON');
  }
  if (!isObj(raw)) throw new PayloadError('a store body is one event as JSON: the body is not a JSON object');
  const eventId = eventIdOf(raw.event_id) ?? null;
  if (raw.type === 'transaction') return { events: [], skipped: { transaction: 1 }, eventId };
  const event = normalizeSentryEvent(raw, now, { preferUrlPaths: true });
  if (!event) throw new PayloadError('the event names neither an exception nor a message');
  return { events: [event], skipped: {}, eventId: eventId ?? event.external_id ?? null };
}
