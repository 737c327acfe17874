import { asFunction, asValue, createContainer, InjectionMode } from 'awilix';
import t from 'tap';
import type { Cradle } from '../../core/kernel/cradle.js';
import { cradleView, optional } from '../../core/kernel/cradle.js';
import { lazyImport } from '../../core/kernel/lazy.js';

void t.test('cradleView reads each entry when used, by key or function, and lists its entries', (t) => {
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });
  let resolved = 0;
  container.register({ rateLimiter: asFunction(() => ({ made: ++resolved }) as never).singleton() });
  const view = cradleView<{ limiter: Cradle['rateLimiter']; codeIndex: unknown; fixed: number }>(container, {
    limiter: 'rateLimiter',
    codeIndex: () => optional(container, 'codeIndex') ?? null,
    fixed: () => 7,
  });
  t.equal(resolved, 0, 'nothing is resolved when the view is made');
  t.same(view.limiter, { made: 1 }, 'a key resolves from the container');
  t.equal(view.limiter, view.limiter, 'a singleton stays one');
  t.equal(view.codeIndex, null, 'a key no plugin provides reads as the function says');
  container.register({ codeIndex: asValue({ late: true } as never) });
  t.same(view.codeIndex, { late: true }, 'a key registered after the view is seen');
  t.equal(view.fixed, 7);
  t.same(Object.keys(view), ['limiter', 'codeIndex', 'fixed'], 'its entries are enumerable');
  t.end();
});

void t.test('lazyImport loads once, and a failed load is tried again', async (t) => {
  let calls = 0;
  const flaky = lazyImport(() => {
    calls++;
    return calls === 1 ? Promise.reject(new Error('not yet')) : Promise.resolve({ value: calls });
  });
  await t.rejects(flaky(), /not yet/, 'the first load fails');
  t.same(await flaky(), { value: 2 }, 'the next caller tries again');
  t.same(await flaky(), { value: 2 }, 'then it is kept');
  t.equal(calls, 2);
  const [a, b] = await Promise.all([lazyImport(() => import('node:path'))(), import('node:path')]);
  t.equal(a, b, 'an import answers the module itself');
});
