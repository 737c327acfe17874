import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import { createWorkspace as createNamed, type Workspace } from '../../../test/helpers/workspaces.js';

// The fix loop's test harness: calls, connecting a repository, polling.
export { call, connectRepository, localHost, waitFor } from '../../fixes/test/helpers.js';

/** A whole service on the offline defaults (local code host, builtin agent), the fix loop on or off. */
export function startOnboardingApp(
  t: Test,
  opts: { fixes?: boolean; onboarding?: Record<string, unknown> } = {},
): Promise<App> {
  return startTestApp(t, {
    adapters: {
      codeHost: 'codehost-local',
      options: { 'codehost-local': { webhookSecret: 'onboarding-test-codehost-secret-01' } },
    },
    plugins: {
      ...(opts.fixes
        ? { fixes: { enabled: true, options: { pollMs: 100, leaseMs: 2000, backoffMs: [50, 100] } } }
        : {}),
      ...(opts.onboarding ? { onboarding: { options: opts.onboarding } } : {}),
    },
  });
}

/** A workspace named `name`, as POST /v1/workspaces answers it. */
export const createWorkspace = (app: App, owner: SignedUp, name: string): Promise<Workspace> =>
  createNamed(app, owner, { name });

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
