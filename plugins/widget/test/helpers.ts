import { createHmac, randomBytes } from 'node:crypto';
import type { App } from '../../../core/kernel/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import { createWorkspace, type Workspace } from '../../../test/helpers/workspaces.js';

export const json = <T = Record<string, unknown>>(res: { payload: string }): T => JSON.parse(res.payload) as T;
export const uid = () => randomBytes(4).toString('hex');
export const HOST = 'https://shop.example.com';

/** A 1×1 PNG. */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** A new workspace: it has its widget key (null only once revoked). */
export type TestWorkspace = Workspace & { widget: { public_key: string } };

export async function workspace(app: App, owner: SignedUp, origins: string[] = [HOST]): Promise<TestWorkspace> {
  const made = await createWorkspace(app, owner, { name: `Shop ${uid()}` });
  const key = made.widget.public_key;
  if (!key) throw new Error(`workspace ${made.id} has no widget key`);
  const ws: TestWorkspace = { ...made, widget: { ...made.widget, public_key: key } };
  if (origins.length) {
    const patch = await app.server.inject({
      method: 'PATCH',
      url: `/v1/workspaces/${ws.id}/widget`,
      payload: { allowed_origins: origins },
      ...owner.auth,
    });
    if (patch.statusCode !== 200) throw new Error(patch.payload);
    ws.widget.allowed_origins = origins;
  }
  return ws;
}

export async function settings(
  app: App,
  owner: SignedUp,
  wsId: string,
): Promise<Record<string, unknown> & { identity_secret: string; public_key: string }> {
  const res = await app.server.inject({ method: 'GET', url: `/v1/workspaces/${wsId}/widget`, ...owner.auth });
  if (res.statusCode !== 200) throw new Error(res.payload);
  return json(res);
}

export const userHash = (secret: string, email: string) =>
  createHmac('sha256', secret).update(email.toLowerCase()).digest('hex');

/** Turns the workspace's passive collection on or off; the answer's status code. */
export async function setPassiveCollection(app: App, owner: SignedUp, wsId: string, enabled: boolean): Promise<number> {
  const res = await app.server.inject({
    method: 'PATCH',
    url: `/v1/workspaces/${wsId}/widget`,
    payload: { passive_collection: { enabled } },
    ...owner.auth,
  });
  return res.statusCode;
}

/** Passive events sent by a host page with the widget's key (from the allowed origin unless `headers` say otherwise). */
export function sendEvents(
  app: App,
  key: string,
  payload: Record<string, unknown>,
  headers: Record<string, string> = { origin: HOST },
) {
  return app.server.inject({ method: 'POST', url: `/v1/widget/events?key=${key}`, headers, payload });
}
