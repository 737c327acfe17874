import type { Knex } from 'knex';
import { rateLimited } from './errors.js';

export interface RateLimitResult {
  allowed: boolean;
  count: number;
  limit: number;
  /** Seconds until the window resets. */
  retryAfterSeconds: number;
}

export interface HitOptions {
  /**
   * For a hot key (a limit checked on every request of a busy endpoint): reserve this many hits
   * at a time from the shared window and spend them in this process, one upsert per reservation
   * instead of one per hit (on one row, every hit would wait for the previous one's commit).
   * A refusal is then kept here until the window ends, without a query. The shared count stays
   * an upper bound: hits reserved and not spent when the window ends are lost (fewer admitted,
   * never more than the limit).
   */
  reserve?: number;
}

/** What this process holds of a key's shared window (`reserve`d hits). */
interface Reservation {
  windowEndsAt: number;
  left: number;
  /** The shared count after the reservation (at or above the limit: refuse until the window ends). */
  count: number;
}

const LOCAL_MAX = 10_000;

/**
 * Fixed-window counters in Postgres: one atomic upsert per hit (or per reservation of hits),
 * shared by every process of the service. Keys name the subject, e.g. `login:ip:203.0.113.9` or
 * `forwarding-test:<workspace>`.
 */
export class RateLimiter {
  private readonly local = new Map<string, Reservation>();
  private readonly reserving = new Map<string, Promise<unknown>>();

  constructor(private readonly db: Knex) {}

  async hit(key: string, limit: number, windowMs: number, opts: HitOptions = {}): Promise<RateLimitResult> {
    const reserve = Math.max(1, Math.floor(opts.reserve ?? 1));
    if (reserve === 1) {
      const r = await this.add(key, 1, windowMs);
      return { allowed: r.count <= limit, count: r.count, limit, retryAfterSeconds: r.retryAfterSeconds };
    }
    for (;;) {
      const now = Date.now();
      const held = this.local.get(key);
      if (held && held.windowEndsAt > now) {
        const retryAfterSeconds = Math.max(1, Math.ceil((held.windowEndsAt - now) / 1000));
        if (held.left > 0) {
          held.left--;
          return { allowed: true, count: held.count, limit, retryAfterSeconds };
        }
        if (held.count >= limit) return { allowed: false, count: held.count, limit, retryAfterSeconds };
      }
      // One reservation at a time per key in this process; the others wait for it and spend from it.
      const pending = this.reserving.get(key);
      if (pending) {
        await pending;
        continue;
      }
      const p = this.reserveHits(key, limit, windowMs, reserve);
      this.reserving.set(key, p);
      try {
        await p;
      } finally {
        this.reserving.delete(key);
      }
    }
  }

  private async reserveHits(key: string, limit: number, windowMs: number, reserve: number): Promise<void> {
    const r = await this.add(key, reserve, windowMs);
    // What of the reservation fits under the limit: all of it, a part, or nothing.
    const granted = Math.max(0, Math.min(reserve, limit - (r.count - reserve)));
    if (this.local.size >= LOCAL_MAX) this.local.clear();
    this.local.set(key, { windowEndsAt: Date.now() + r.msLeft, left: granted, count: r.count });
  }

  /** Adds `n` hits to the key's window (a new window when the last one ended). */
  private async add(
    key: string,
    n: number,
    windowMs: number,
  ): Promise<{ count: number; retryAfterSeconds: number; msLeft: number }> {
    const seconds = windowMs / 1000;
    const { rows } = await this.db.raw<{ rows: { count: number; window_start: Date; now: Date }[] }>(
      `insert into rate_limits (key, window_start, count) values (?, now(), ?)
       on conflict (key) do update set
         count = case when rate_limits.window_start <= now() - make_interval(secs => ?) then excluded.count else rate_limits.count + excluded.count end,
         window_start = case when rate_limits.window_start <= now() - make_interval(secs => ?) then now() else rate_limits.window_start end
       returning count, window_start, now() as now`,
      [key, n, seconds, seconds],
    );
    const row = rows[0];
    const msLeft = Math.max(0, new Date(row.window_start).getTime() + windowMs - new Date(row.now).getTime());
    return { count: row.count, retryAfterSeconds: Math.max(1, Math.ceil(msLeft / 1000)), msLeft };
  }

  /** Counts a hit and throws 429 rate_limited with Retry-After when over the limit. */
  async consume(
    key: string,
    limit: number,
    windowMs: number,
    message?: string,
    opts: HitOptions = {},
  ): Promise<RateLimitResult> {
    const result = await this.hit(key, limit, windowMs, opts);
    if (!result.allowed) throw rateLimited(result.retryAfterSeconds, message);
    return result;
  }

  /** Whether the key is over its limit, without counting a hit. */
  async peek(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const row = await this.db('rate_limits').where({ key }).first<{ count: number; window_start: Date } | undefined>();
    const now = Date.now();
    if (!row || new Date(row.window_start).getTime() + windowMs <= now)
      return { allowed: true, count: 0, limit, retryAfterSeconds: 0 };
    const retryAfterSeconds = Math.max(1, Math.ceil((new Date(row.window_start).getTime() + windowMs - now) / 1000));
    return { allowed: row.count < limit, count: row.count, limit, retryAfterSeconds };
  }

  async reset(key: string): Promise<void> {
    this.local.delete(key);
    await this.db('rate_limits').where({ key }).delete();
  }

  /** Deletes windows that ended long ago (scheduled). */
  async purge(olderThanMs: number): Promise<number> {
    return this.db('rate_limits')
      .where('window_start', '<', new Date(Date.now() - olderThanMs))
      .delete();
  }
}
