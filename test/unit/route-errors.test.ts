import t from 'tap';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT, deriveRouteErrors } from '../../bin/route-errors.js';

/** A small program laid out like this one (core/http/errors.ts, plugins/…), analysed from scratch. */
function fixture(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'route-errors-'));
  writeFileSync(
    join(root, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: [],
      },
    }),
  );
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
  mkdirSync(join(root, 'core/http'), { recursive: true });
  copyFileSync(join(ROOT, 'core/http/errors.ts'), join(root, 'core/http/errors.ts'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

const SERVICE = `
import { conflict, httpError, notFound } from '../../core/http/errors.js';

export interface Gate { check(orgId: string): Promise<void> }
export class BillingGate implements Gate {
  async check(orgId: string): Promise<void> {
    if (!orgId) throw httpError(402, 'plan_limit_reached', 'No credit left');
  }
}

export interface Guard { decide(): Promise<{ allowed: true } | { allowed: false; code: string }> }
// A guard that never refuses answers a resolved promise: the walk reads through Promise.resolve.
export const openGuard: Guard = { decide: () => Promise.resolve({ allowed: true }) };
export function strictGuard(inner: Guard): Guard {
  return { decide: async () => (Math.random() > 0.5 ? { allowed: false, code: 'white_label_not_ready' } : inner.decide()) };
}

const refuse = (status: number, code: string) => httpError(status, code, 'refused');

export class Things {
  constructor(private readonly gate: Gate, private readonly guard: Guard) {}

  async open(id: string) {
    await this.gate.check(id);
    if (id === 'x') throw refuse(422, 'no_repository');
    const decision = await this.guard.decide();
    if (!decision.allowed) throw httpError(409, decision.code, 'The guard says no');
    return this.load(id);
  }

  async load(id: string) {
    if (!id) throw notFound('thing');
    return { id };
  }

  async quiet(id: string) {
    try {
      await this.load(id);
    } catch {
      return null;
    }
    return this.load(id).catch(() => null);
  }

  async retried(id: string, retryable: boolean) {
    try {
      await this.load(id);
    } catch (err) {
      if (retryable) throw err;
    }
    throw httpError(retryable ? 503 : 502, retryable ? 'host_unavailable' : 'host_error', 'The host did not answer');
  }

  async blocked(kind: 'a' | 'b') {
    const blocker = kind === 'a' ? 'workspace_required' : null;
    const view = { demo: { blocker } };
    if (view.demo.blocker) throw conflict(view.demo.blocker ?? 'demo_unavailable', 'Blocked');
  }
}
`;

const ROUTES = `
import type { ServerRoute } from '@hapi/hapi';
import { httpError } from '../../core/http/errors.js';
import type { Things } from './things.js';

export function thingRoutes(s: () => Things): ServerRoute[] {
  const action = (name: 'open' | 'quiet', id: string): ServerRoute => ({
    method: 'POST',
    path: '/v1/things/{id}/' + name,
    options: { id, tags: ['things'], handler: async (r) => s()[name]((r.params as { id: string }).id) },
  });
  return [
    action('open', 'openThing'),
    action('quiet', 'quietThing'),
    ...(['retry', 'block'] as const).map((k): ServerRoute => ({
      method: 'POST',
      path: '/v1/' + k,
      options: {
        id: k === 'retry' ? 'retryThing' : 'blockThing',
        tags: ['things'],
        handler: async () => (k === 'retry' ? s().retried('x', true) : s().blocked('a')),
      },
    })),
    { method: 'GET', path: '/v1/plain', options: { id: 'plainThing', tags: ['things'], handler: () => ({}) } },
    {
      method: 'GET',
      path: '/v1/vague/{code}',
      options: { id: 'vagueThing', tags: ['things'], handler: (r) => { throw httpError(409, (r.params as { code: string }).code, 'Vague'); } },
    },
  ];
}

export const demoResolver = {
  strategy: 'session',
  name: 'demo',
  async authenticate(): Promise<null> {
    throw httpError(401, 'session_expired', 'Your session has ended');
  },
};
`;

t.test('the walk follows a handler into the code it calls and collects each error with its code', (t) => {
  const root = fixture({ 'plugins/demo/things.ts': SERVICE, 'plugins/demo/routes.ts': ROUTES });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  const derived = deriveRouteErrors(root);
  const codes = (id: string) => (derived.operations[id] ?? []).map((e) => `${e.status} ${e.code}`);

  t.same(
    Object.keys(derived.operations),
    ['blockThing', 'openThing', 'plainThing', 'quietThing', 'retryThing', 'vagueThing'],
    'routes made by factories and by map() are found by their ids',
  );
  t.same(codes('openThing'), [
    '402 plan_limit_reached', // through an interface, in the class that implements it
    '404 not_found', // notFound() is httpError(404, 'not_found')
    '409 white_label_not_ready', // a code read from the object the guard returns
    '422 no_repository', // a helper called with literal arguments
  ]);
  t.same(codes('quietThing'), [], 'errors caught and not rethrown (try/catch, promise.catch) do not get out');
  t.same(
    codes('retryThing'),
    ['404 not_found', '502 host_error', '503 host_unavailable'],
    'a rethrown error, and paired conditional status and code',
  );
  t.same(
    codes('blockThing'),
    ['409 demo_unavailable', '409 workspace_required'],
    'a code from a literal-valued variable through an object, and its fallback',
  );
  t.same(codes('plainThing'), []);
  t.same(
    derived.unresolved,
    {
      vagueThing: [
        { status: 409, code: null, file: 'plugins/demo/routes.ts', expression: '(r.params as { code: string }).code' },
      ],
    },
    'what the walk cannot know is listed',
  );
  t.same(
    derived.strategies,
    { session: [{ status: 401, code: 'session_expired' }] },
    "what an auth strategy's resolver throws",
  );
  t.end();
});

// Whether core/http/route-errors.generated.json is current is checked once per CI run, not per engine:
// `npm run openapi:errors -- --check` in .ci/run (the walk takes most of a minute).
