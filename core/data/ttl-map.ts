/**
 * A bounded in-memory map whose entries expire `ttlMs` after they were set: the short
 * per-process caches of hot paths (a widget key's install, a connector, a workspace's settings,
 * which releases have source maps). An expired entry reads as absent; when full, the map is
 * emptied whole (no LRU bookkeeping on the hot path). The value may be null (a remembered "none").
 */
export class TtlMap<K, V> {
  private readonly entries = new Map<K, { at: number; value: V }>();

  constructor(
    private readonly ttlMs: number,
    private readonly max = 10_000,
  ) {}

  /** The value set less than ttlMs ago, else undefined. */
  get(key: K, now = Date.now()): V | undefined {
    const e = this.entries.get(key);
    return e && now - e.at < this.ttlMs ? e.value : undefined;
  }

  set(key: K, value: V, now = Date.now()): V {
    if (this.entries.size >= this.max) this.entries.clear();
    this.entries.set(key, { at: now, value });
    return value;
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  /** Forgets every entry `test` picks (an administrative change: not for hot paths). */
  deleteWhere(test: (value: V, key: K) => boolean): void {
    for (const [key, e] of this.entries) if (test(e.value, key)) this.entries.delete(key);
  }
}
