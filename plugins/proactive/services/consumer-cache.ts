import type { SourceMapConsumer } from 'source-map';

/** A small LRU of parsed maps; evicted consumers are destroyed (they hold WebAssembly memory). */
export class ConsumerCache {
  private readonly map = new Map<string, Promise<SourceMapConsumer | null>>();
  constructor(private readonly size: number) {}

  get(key: string): Promise<SourceMapConsumer | null> | undefined {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Promise<SourceMapConsumer | null>): void {
    this.map.set(key, value);
    while (this.map.size > this.size) {
      const oldest = this.map.keys().next().value as string;
      this.drop(oldest);
    }
  }

  drop(key: string): void {
    const p = this.map.get(key);
    this.map.delete(key);
    void p?.then(
      (c) => c?.destroy(),
      () => undefined,
    );
  }

  dropPrefix(prefix: string): void {
    for (const k of [...this.map.keys()]) if (k.startsWith(prefix)) this.drop(k);
  }

  clear(): void {
    for (const k of [...this.map.keys()]) this.drop(k);
  }
}
