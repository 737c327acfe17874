import type { Knex } from 'knex';
import { rateLimited } from './errors.js';

export interface RateLimitResult {
  allowed: boolean;
  count: number;
  limit: number;
  /** Seconds until the window resets. */
  retryAfterSeconds: number;
}

/**
 * Fixed-window counters in Postgres: one atomic upsert per hit, shared by every process of the
 * service. Keys name the subject, e.g. `login:ip:203.0.113.9` or `forwarding-test:<workspace>`.
 */
export class RateLimiter {
  constructor(private readonly db: Knex) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const seconds = windowMs / 1000;
    const { rows } = await this.db.raw<{ rows: { count: number; window_start: Date; now: Date }[] }>(
      `insert into rate_limits (key, window_start, count) values (?, now(), 1)
       on conflict (key) do update set
         count = case when rate_limits.window_start <= now() - make_interval(secs => ?) then 1 else rate_limits.count + 1 end,
         window_start = case when rate_limits.window_start <= now() - make_interval(secs => ?) then now() else rate_limits.window_start end
       returning count, window_start, now() as now`,
      [key, seconds, seconds],
    );
    const row = rows[0]!;
    const resetAt = new Date(row.window_start).getTime() + windowMs;
    const retryAfterSeconds = Math.max(1, Math.ceil((resetAt - new Date(row.now).getTime()) / 1000));
    return { allowed: row.count <= limit, count: row.count, limit, retryAfterSeconds };
  }

  /** Counts a hit and throws 429 rate_limited with Retry-After when over the limit. */
  async consume(key: string, limit: number, windowMs: number, message?: string): Promise<RateLimitResult> {
    const result = await this.hit(key, limit, windowMs);
    if (!result.allowed) throw rateLimited(result.retryAfterSeconds, message);
    return result;
  }

  /** Whether the key is over its limit, without counting a hit. */
  async peek(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const row = await this.db('rate_limits').where({ key }).first<{ count: number; window_start: Date } | undefined>();
    const now = Date.now();
    if (!row || new Date(row.window_start).getTime() + windowMs <= now) return { allowed: true, count: 0, limit, retryAfterSeconds: 0 };
    const retryAfterSeconds = Math.max(1, Math.ceil((new Date(row.window_start).getTime() + windowMs - now) / 1000));
    return { allowed: row.count < limit, count: row.count, limit, retryAfterSeconds };
  }

  async reset(key: string): Promise<void> {
    await this.db('rate_limits').where({ key }).delete();
  }

  /** Deletes windows that ended long ago (scheduled). */
  async purge(olderThanMs: number): Promise<number> {
    return this.db('rate_limits').where('window_start', '<', new Date(Date.now() - olderThanMs)).delete();
  }
}
