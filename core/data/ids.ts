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
