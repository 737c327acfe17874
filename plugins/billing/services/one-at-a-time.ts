/**
 * Runs calls for the same key one after another in this process (a failed call does not stop
 * the next); calls for other keys run side by side. The map holds only keys with work pending.
 */
export class OneAtATime {
  private readonly running = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const next = (this.running.get(key) ?? Promise.resolve()).catch(() => undefined).then(fn);
    this.running.set(key, next);
    void next
      .finally(() => {
        if (this.running.get(key) === next) this.running.delete(key);
      })
      .catch(() => undefined);
    return next;
  }
}
