import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case
// Random bytes are drawn 4 KiB at a time (one call per 256 ids): a call per id was measurable on ingest.
const POOL_SIZE = 4096;
const pool = Buffer.alloc(POOL_SIZE);
let poolAt = POOL_SIZE;

/**
 * A time-sortable opaque id: `<prefix>_<10 chars of milliseconds><16 random chars>` (a ULID in
 * lower-case Crockford base32). Ids of one kind sort by creation time.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (poolAt + 16 > POOL_SIZE) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let rand = '';
  for (let i = poolAt; i < poolAt + 16; i++) rand += ALPHABET[pool[i]! & 31];
  poolAt += 16;
  return `${prefix}_${time}${rand}`;
}

const lastIds = new Map<string, string>();

/**
 * newId, increasing within this process: newId's random part does not keep the order of ids
 * made in the same millisecond, and some readers order by id (the outbox relay publishes in id
 * order; ingest takes the latest release of a batch's events by occurrence, then by id).
 */
export function increasingId(prefix: string): string {
  const id = newId(prefix);
  const last = lastIds.get(prefix) ?? '';
  const next = id > last ? id : incremented(last);
  lastIds.set(prefix, next);
  return next;
}

/** The id after `id` in the alphabet's order (its last character counted up, with carry). */
function incremented(id: string): string {
  const chars = id.split('');
  for (let i = chars.length - 1; i >= 0; i--) {
    const next = ALPHABET.indexOf(chars[i]!) + 1;
    if (next === 0) break; // reached the prefix: cannot happen within 16 random characters
    if (next < ALPHABET.length) {
      chars[i] = ALPHABET[next]!;
      return chars.join('');
    }
    chars[i] = ALPHABET[0]!;
  }
  return newId(id.slice(0, id.indexOf('_')));
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
