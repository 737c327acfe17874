import { AsyncLocalStorage } from 'node:async_hooks';
import type { App } from '../../core/kernel/app.js';

const counting = new AsyncLocalStorage<{ queries: number }>();

/**
 * The queries `fn` sent (knex's query event, every engine) and how long it took, by async context:
 * the worker, the outbox relay and the consumers working meanwhile are not counted.
 */
export async function countQueries<T>(
  app: App,
  fn: () => Promise<T>,
): Promise<{ result: T; queries: number; ms: number }> {
  const store = { queries: 0 };
  const onQuery = () => {
    const mine = counting.getStore();
    if (mine) mine.queries++;
  };
  app.db.on('query', onQuery);
  try {
    const started = performance.now();
    const result = await counting.run(store, fn);
    return { result, queries: store.queries, ms: performance.now() - started };
  } finally {
    app.db.off('query', onQuery);
  }
}
