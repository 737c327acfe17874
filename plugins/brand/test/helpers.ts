import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import type { LocalDns } from '../../../test/helpers/dns-server.js';
import type { Answer } from '../../../test/helpers/api-types.js';
import { call, type Call } from '../../../test/helpers/call.js';
import { createTicket } from '../../../test/helpers/tickets.js';
import { createWorkspace, type Workspace } from '../../../test/helpers/workspaces.js';
export { call, type Call };

/** A brand profile as the API answers it (POST /v1/brand/profiles, GET and PATCH /v1/brand/profiles/{id}). */
export type Profile = Answer<'POST', '/v1/brand/profiles'>;

const here = dirname(fileURLToPath(import.meta.url));

/** Real images (CPython's imghdr test data, PSF licence): 16×16 PNG, JPEG, WebP (VP8X) and a GIF. */
export const image = (name: 'python.png' | 'python.jpg' | 'python.webp' | 'python.gif'): Buffer =>
  readFileSync(join(here, 'fixtures', name));

/** A service with the brand and inbox plugins looking status and email records up on `dnsServer`. */
export async function startBrand(t: Test, dnsServer?: string, brand: Record<string, unknown> = {}): Promise<App> {
  const dns = dnsServer ? { dnsServers: [dnsServer], dnsTimeoutMs: 1000 } : {};
  return startTestApp(t, {
    plugins: {
      brand: { options: { statusCnameTarget: 'status.patchwell.test', ...dns, ...brand } },
      inbox: { options: { ...dns, domainRefreshSeconds: 3600 } },
    },
  });
}

export async function setOrg(app: App, who: SignedUp, patch: Record<string, unknown>): Promise<void> {
  await app.db('organizations').where({ id: who.organization.id }).update(patch);
}

export const newWorkspace = (
  app: App,
  owner: SignedUp,
  name: string,
  extra: Record<string, unknown> = {},
): Promise<Workspace> => createWorkspace(app, owner, { name, ...extra });

export async function newProfile(app: App, owner: SignedUp, body: Record<string, unknown>): Promise<Profile> {
  const res = await call(app, owner, 'POST', '/v1/brand/profiles', body);
  if (res.status !== 201) throw new Error(`profile: ${res.status} ${res.payload}`);
  return res.body;
}

export const uid = () => randomBytes(5).toString('hex');

/** Jane Doe's email "Checkout fails" opening a ticket in the workspace (in `language` when given); answers its id. */
export async function checkoutTicket(app: App, orgId: string, workspaceId: string, language?: string): Promise<string> {
  const tk = await createTicket(app, {
    orgId,
    workspaceId,
    subject: 'Checkout fails',
    customerEmail: 'jane.doe@example.com',
    customerName: 'Jane Doe',
    ...(language ? { language } : {}),
    message: {
      from: 'jane.doe@example.com',
      subject: 'Checkout fails',
      bodyText: 'Pay does nothing.',
      emailMessageId: `<open-${uid()}@mail.example.com>`,
    },
  });
  return tk.id;
}

/** Puts `domain` as the profile's status domain, publishes its CNAME and TXT on `dns` and asks to verify it: the answer. */
export async function verifyStatusDomain(
  app: App,
  who: SignedUp,
  dns: LocalDns,
  profileId: string,
  domain: string,
): Promise<Call<Answer<'POST', `/v1/brand/profiles/${string}/status-domain/verify`>>> {
  const put = await call(app, who, 'PUT', `/v1/brand/profiles/${profileId}/status-domain`, { domain });
  const state = put.body.status_domain_state;
  if (!state) throw new Error(`status domain: ${put.status} ${put.payload}`);
  dns.cname.set(domain, 'status.patchwell.test');
  dns.txt.set(state.txt.name, [state.txt.value]);
  return call(app, who, 'POST', `/v1/brand/profiles/${profileId}/status-domain/verify`);
}
