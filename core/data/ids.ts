import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case
const CODES = Buffer.from(ALPHABET, 'latin1');
// Random bytes are drawn 4 KiB at a time (one call per 256 ids): a call per id was measurable on ingest.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;
// An id is written into this buffer and read out as one string: built a character at a time it
// was ~26 intermediate strings (~1 KB of garbage per id, thousands of ids a second on ingest).
const scratch = Buffer.alloc(64);

const PREFIX = /^[a-z0-9]{0,32}$/i;

/** Writes `<prefix>_` into scratch and returns where the body starts. */
function writePrefix(prefix: string): number {
  if (!PREFIX.test(prefix)) throw new RangeError(`id prefix "${prefix.slice(0, 40)}" is not up to 32 letters and digits`);
  scratch.write(prefix, 0, 'latin1');
  scratch[prefix.length] = 0x5f; // _
  return prefix.length + 1;
}

/** Writes a body at `at`: 10 characters of the milliseconds `ms`, then 16 random ones. */
function writeBody(at: number, ms: number): void {
  let t = ms;
  for (let i = at + 9; i >= at; i--) {
    scratch[i] = CODES[t % 32]!;
    t = Math.floor(t / 32);
  }
  if (poolAt + 16 > POOL_SIZE) {
    randomFillSync(pool);
    poolAt = 0;
  }
  for (let i = 0; i < 16; i++) scratch[at + 10 + i] = CODES[pool[poolAt + i] & 31]!;
  poolAt += 16;
}

/**
 * A time-sortable opaque id: `<prefix>_<10 chars of milliseconds><16 random chars>` (a ULID in
 * lower-case Crockford base32). Ids of one kind sort by creation time.
 */
export function newId(prefix: string, now = Date.now()): string {
  const at = writePrefix(prefix);
  writeBody(at, now);
  return scratch.toString('latin1', 0, at + 26);
}

interface Last {
  ms: number;
  /** The body (26 characters) of the last id, as character codes. */
  body: Uint8Array;
}
const lastIds = new Map<string, Last>();
const VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) VALUE[ALPHABET.charCodeAt(i)] = i;

/**
 * newId, increasing within this process: newId's random part does not keep the order of ids
 * made in the same millisecond, and some readers order by id (the outbox relay publishes in id
 * order; ingest takes the latest release of a batch's events by occurrence, then by id). In a
 * millisecond that already has an id (or when the clock steps back), the next id is the last one
 * counted up by one, as ULID's monotonic ids are.
 */
export function increasingId(prefix: string): string {
  const now = Date.now();
  const at = writePrefix(prefix);
  let last = lastIds.get(prefix);
  if (last && now <= last.ms && countUp(last.body)) scratch.set(last.body, at);
  else {
    // A new millisecond; or, when all 2^80 ids of the last one are used (not in practice), the next.
    const ms = last && now <= last.ms ? last.ms + 1 : now;
    writeBody(at, ms);
    if (!last) lastIds.set(prefix, (last = { ms, body: new Uint8Array(26) }));
    last.ms = ms;
    last.body.set(scratch.subarray(at, at + 26));
  }
  return scratch.toString('latin1', 0, at + 26);
}

/** Counts the random part (the last 16 characters) of a body up by one; false when it overflowed. */
function countUp(body: Uint8Array): boolean {
  for (let i = 25; i >= 10; i--) {
    const v = VALUE[body[i]] + 1;
    if (v < 32) {
      body[i] = CODES[v]!;
      return true;
    }
    body[i] = CODES[0]!;
  }
  return false;
}

/** The millisecond timestamp encoded in an id made by newId, or null. */
export function idTime(id: string): number | null {
  const body = id.split('_').pop() ?? '';
  if (body.length !== 26) return null;
  let t = 0;
  for (const ch of body.slice(0, 10)) {
    const v = ALPHABET.indexOf(ch);
    if (v < 0) return null;
    t = t * 32 + v;
  }
  return t;
}
