import type { App } from '../../core/kernel/app.js';
import { signUp, type SignedUp } from './accounts.js';
import type { Answer } from './api-types.js';
import { call, type Caller } from './call.js';

/**
 * Workspaces made through the API (POST /v1/workspaces), for tests of any plugin.
 *
 * @example
 *   const ws = await createWorkspace(app, owner, { name: 'Shop' });
 *   const { app, owner, workspace } = await worldOn(await startTestApp(t));
 */

/** A workspace as POST /v1/workspaces answers it. */
export type Workspace = Answer<'POST', '/v1/workspaces'>;

/** A workspace made by `who` with `fields` (name, client_name, locale…); throws unless the API answers 201. */
export async function createWorkspace(app: App, who: Caller, fields: Record<string, unknown>): Promise<Workspace> {
  const res = await call(app, who, 'POST', '/v1/workspaces', fields);
  if (res.status !== 201) throw new Error(`workspace: ${res.status} ${res.payload}`);
  return res.body;
}

export interface World {
  app: App;
  owner: SignedUp;
  workspace: Workspace;
}

/** On a started service: an organization (Acme), its owner and one workspace made with `fields`. */
export async function worldOn(app: App, fields: Record<string, unknown> = { name: 'Shop' }): Promise<World> {
  const owner = await signUp(app, { orgName: 'Acme' });
  const workspace = await createWorkspace(app, owner, fields);
  return { app, owner, workspace };
}
