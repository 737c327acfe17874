import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { LocalCodeHost } from '../../../adapters/codehost-local/index.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { call, type Call } from '../../../test/helpers/call.js';
import { createWorkspace as createNamedWorkspace, type Workspace } from '../../../test/helpers/workspaces.js';
export { call, type Call };
export { installAndLink } from '../../../test/helpers/codehost.js';

export const SECRET = 'codehost-test-webhook-secret-42';
export const LOCAL_USER = { login: 'ada', email: 'ada@example.test', password: 'lovelace-1815' };

/** A service with the local code host, its webhook secret and one local sign-in account. */
export function startCodehostApp(t: Test, overrides: Record<string, unknown> = {}): Promise<App> {
  return startTestApp(t, {
    adapters: {
      codeHost: 'codehost-local',
      options: { 'codehost-local': { webhookSecret: SECRET, users: [LOCAL_USER] } },
    },
    ...overrides,
  });
}

export const localHost = (app: App): LocalCodeHost => app.container.resolve('codeHost') as LocalCodeHost;

/**
 * A code-host service (startCodehostApp) with two organizations: Acme, whose owner makes repositories
 * under `slug` on the local `host`, and Other, whose owner must get 404 for Acme's records.
 */
export async function codehostWorld(t: Test) {
  const app = await startCodehostApp(t);
  const owner = await signUp(app, { orgName: 'Acme' });
  const other = await signUp(app, { orgName: 'Other' });
  return { app, owner, other, host: localHost(app), slug: owner.organization.slug };
}

/** A workspace named `name` made by `owner` (POST /v1/workspaces). */
export const createWorkspace = (app: App, owner: SignedUp, name = 'Web'): Promise<Workspace> =>
  createNamedWorkspace(app, owner, { name });

export { waitFor };
