import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import type { LocalCodeHost } from '../../../adapters/codehost-local/index.js';

export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- API answers are checked field by field

/** A whole service on the offline defaults (local code host, builtin agent), the fix loop on or off. */
export function startOnboardingApp(t: Test, opts: { fixes?: boolean; onboarding?: Record<string, unknown> } = {}): Promise<App> {
  return startTestApp(t, {
    adapters: { codeHost: 'codehost-local', options: { 'codehost-local': { webhookSecret: 'onboarding-test-codehost-secret-01' } } },
    plugins: {
      ...(opts.fixes ? { fixes: { enabled: true, options: { pollMs: 100, leaseMs: 2000, backoffMs: [50, 100] } } } : {}),
      ...(opts.onboarding ? { onboarding: { options: opts.onboarding } } : {}),
    },
  });
}

export const localHost = (app: App): LocalCodeHost => app.container.resolve('codeHost') as LocalCodeHost;

export async function call(app: App, who: SignedUp | null, method: string, url: string, payload?: unknown) {
  const res = await app.server.inject({ method, url, payload: payload as object | undefined, headers: who ? who.auth.headers : {} });
  let body: Json = {};
  try {
    body = res.payload ? (JSON.parse(res.payload) as Json) : {};
  } catch {
    body = { raw: res.payload };
  }
  return { status: res.statusCode, body };
}

export async function createWorkspace(app: App, owner: SignedUp, name: string): Promise<Json> {
  const res = await call(app, owner, 'POST', '/v1/workspaces', { name });
  if (res.status !== 201) throw new Error(`workspace: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Installs the local code host, creates a repository with `files`, connects it and waits for its code index. */
export async function connectRepository(app: App, owner: SignedUp, workspaceId: string, name: string, files: Record<string, string>): Promise<Json> {
  await localHost(app).createRepository(`${owner.organization.slug}/${name}`, { isPublic: true, files });
  const start = await call(app, owner, 'POST', '/v1/codehost/install');
  const page = await app.server.inject({ method: 'GET', url: new URL(start.body.url).pathname + new URL(start.body.url).search });
  const back = new URL(String(page.headers.location));
  const inst = await call(app, owner, 'POST', '/v1/codehost/installations', { installation_id: back.searchParams.get('installation_id'), state: back.searchParams.get('state'), setup_action: 'install' });
  const repo = await call(app, owner, 'POST', '/v1/repositories', { installation_id: inst.body.id, workspace_id: workspaceId, full_name: `${owner.organization.slug}/${name}` });
  if (repo.status !== 201) throw new Error(`repository: ${repo.status} ${JSON.stringify(repo.body)}`);
  await waitFor(async () => {
    const r = await call(app, owner, 'GET', `/v1/repositories/${repo.body.id}`);
    return r.body.index?.status === 'ready' ? r.body : null;
  }, 'the code index');
  return repo.body;
}

export async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, what: string, timeoutMs = 20_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const SHOP_FILES: Record<string, string> = {
  'README.md': '# Shop\n\nA small shop.\n\n## Install\n\nRun `npm install` and then `npm start`.\n',
  'package.json': '{"name":"shop","version":"1.0.0","scripts":{"test":"node test.js"}}\n',
  'src/cart.js': [
    'export function addToCart(cart, item) {',
    '  if (!item.sku) throw new Error("Item without SKU cannot be added to the cart");',
    '  cart.items.push(item);',
    '  return cart;',
    '}',
    '',
  ].join('\n'),
};
