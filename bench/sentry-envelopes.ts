// The Sentry SDK envelopes the ingest benchmark sends: real ones captured from @sentry/node
// (test/fixtures/sentry/), replayed with the bench connector's key and a fresh event id each.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The event envelopes @sentry/node sent when they were captured (test/fixtures/sentry/capture.mjs). */
export const SENTRY_FIXTURES = ['node-handled', 'node-error-cause'];
const FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), '../test/fixtures/sentry');

export interface CapturedEnvelope {
  /** The envelope as the SDK wrote it, with the bench connector's public key for the one it was captured with. */
  body: Buffer;
  /** Where its event id stands (in the envelope header and in the event): each request writes a fresh one there. */
  idOffsets: number[];
  /** The request's query (sentry_version, sentry_key, sentry_client) and headers as the SDK sent them. */
  query: URLSearchParams;
  headers: Record<string, string>;
}

export function capturedEnvelope(name: string, publicKey: string): CapturedEnvelope {
  const meta = JSON.parse(readFileSync(join(FIXTURE_DIR, `${name}.json`), 'utf8')) as {
    url: string;
    headers: Record<string, string>;
  };
  const query = new URL(meta.url, 'http://x').searchParams;
  const captured = readFileSync(join(FIXTURE_DIR, `${name}.envelope`), 'utf8');
  const eventId = (JSON.parse(captured.slice(0, captured.indexOf('\n'))) as { event_id: string }).event_id;
  const body = Buffer.from(captured.replaceAll(query.get('sentry_key') ?? publicKey, publicKey));
  const idOffsets: number[] = [];
  for (let at = body.indexOf(eventId); at >= 0; at = body.indexOf(eventId, at + 1)) idOffsets.push(at);
  query.set('sentry_key', publicKey);
  // The connection's own headers are the load generator's; the SDK's (user agent, encoding) stay.
  const headers = Object.fromEntries(
    Object.entries(meta.headers).filter(
      ([k]) => !['host', 'connection', 'transfer-encoding', 'content-length'].includes(k),
    ),
  );
  return { body, idOffsets, query, headers };
}

/** The captured bytes with a fresh event id (a copy and two 32-byte writes: microseconds per request). */
export function withFreshEventId(c: CapturedEnvelope): Buffer {
  const body = Buffer.from(c.body);
  const id = randomUUID().replaceAll('-', '');
  for (const at of c.idOffsets) body.write(id, at, 'latin1');
  return body;
}
