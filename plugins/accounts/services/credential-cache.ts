import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { listen, type Listener } from '../../../core/data/notifications.js';

// Statements that can end or narrow a credential: any write to these tables through knex.
const CREDENTIAL_WRITE =
  /^\s*(?:insert\s+into|update|delete\s+from)\s+"?(?:sessions|api_tokens|users|user_workspaces)"?[\s(]/i;

export interface CredentialCacheOptions {
  /** How long an entry is trusted at most (a backstop: changes empty the cache at once). 0 turns the cache off. */
  ttlSeconds: number;
  maxEntries: number;
}

/**
 * Credentials (a session or an API token, with its user and grants) that authenticated in the
 * last ttlSeconds, so the next request of the same caller skips the lookup. Kept correct by:
 * - this process: every statement that writes sessions, api_tokens, users or user_workspaces
 *   through knex empties the cache when it is issued, and a lookup that started before that is
 *   not kept (a generation count);
 * - other processes (Postgres): triggers notify `pw_credentials` when such a change commits
 *   (migration 1030), and every process empties its cache. While the LISTEN connection is down
 *   the cache is not used at all.
 * Touching a credential (last_seen_at, last_used_at) writes outside knex and notifies nobody.
 * PGlite is one process: the first rule is enough.
 */
export class CredentialCache<V> {
  private readonly entries = new Map<string, { at: number; value: V }>();
  private generation = 0;
  private live: boolean;
  private listener: Listener | null = null;

  constructor(
    private readonly opts: CredentialCacheOptions,
    needsListener: boolean,
  ) {
    this.live = opts.ttlSeconds > 0 && !needsListener;
  }

  /**
   * The cached value of `key`, else `load`'s, kept when it is not null and nothing changed while
   * it loaded (a caller trying unknown tokens would only fill the cache).
   */
  async through(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.get(key);
    if (hit) return hit;
    const begun = this.begin();
    const value = await load();
    if (value !== null) this.put(key, value, begun);
    return value;
  }

  /** The generation a lookup starts at; pass it to `put`. */
  begin(): number {
    return this.generation;
  }

  get(key: string): V | undefined {
    if (!this.live) return undefined;
    const hit = this.entries.get(key);
    if (!hit) return undefined;
    if (Date.now() - hit.at > this.opts.ttlSeconds * 1000) {
      this.entries.delete(key);
      return undefined;
    }
    return hit.value;
  }

  /** Keeps what a lookup found, unless something changed since it began. */
  put(key: string, value: V, begunAt: number): void {
    if (!this.live || begunAt !== this.generation) return;
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { at: Date.now(), value });
  }

  /** Forgets everything (and every lookup in flight). */
  invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  /** Empties the cache on every credential write this process issues through `db`. */
  watch(db: Knex): void {
    db.on('query', (q: { sql?: string }) => {
      if (q.sql && CREDENTIAL_WRITE.test(q.sql)) this.invalidate();
    });
  }

  /** Postgres: follows other processes' changes (LISTEN pw_credentials); the cache is off while not listening. */
  follow(url: string, log: Pick<Logger, 'warn' | 'info'>): void {
    if (this.opts.ttlSeconds <= 0) return;
    this.listener = listen({
      url,
      channel: 'pw_credentials',
      log,
      onNotify: () => this.invalidate(),
      onState: (up) => {
        this.invalidate();
        this.live = up;
      },
    });
  }

  async stop(): Promise<void> {
    this.live = false;
    this.invalidate();
    await this.listener?.stop();
  }
}
