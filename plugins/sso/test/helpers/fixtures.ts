import type { App } from '../../../../core/kernel/app.js';
import { newId } from '../../../../core/data/ids.js';
import { setCookies } from '../../../../test/helpers/accounts.js';

/** Puts an organization on a plan (billing owns the real change). */
export async function setPlan(app: App, orgId: string, plan = 'enterprise'): Promise<void> {
  await app.db('organizations').where({ id: orgId }).update({ plan });
}

/** A domain the organization has verified (the verification itself is tested in domains.test.ts). */
export async function verifiedDomain(app: App, orgId: string, domain: string): Promise<void> {
  await app
    .db('sso_domains')
    .insert({
      id: newId('ssod'),
      org_id: orgId,
      domain,
      status: 'verified',
      txt_value: 'x',
      verified_at: new Date(),
      created_at: new Date(),
      updated_at: new Date(),
    })
    .onConflict(['org_id', 'domain'])
    .merge({ status: 'verified', verified_at: new Date() });
}

export async function sessionCount(app: App): Promise<number> {
  const [row] = await app.db('sessions').count<Array<{ n: string | number }>>('* as n');
  return Number(row.n);
}

/** The value a response set for a cookie, or null. */
export function cookieFrom(res: { headers: Record<string, unknown> }, name: string): string | null {
  for (const c of setCookies(res)) {
    const m = new RegExp(`^${name}=([^;]*)`).exec(c);
    if (m && m[1]) return m[1];
  }
  return null;
}

export const json = <T = Record<string, unknown>>(res: { payload: string }): T => JSON.parse(res.payload) as T;

/** A connection's settings calls as `who` (an owner, unless the test says otherwise). */
export function ssoConnection(app: App, who: SignedIn, id: string) {
  const url = `/v1/security/sso/connections/${id}`;
  return {
    /** PATCH the connection. */
    update: (payload: Record<string, unknown>) => app.server.inject({ method: 'PATCH', url, ...who.auth, payload }),
    /** POST …/test: the answer (`ok`, the `error` if not, the `protocol`). */
    test: async () =>
      json<{ ok: boolean; error: string | null; protocol: string; details: object }>(
        await app.server.inject({ method: 'POST', url: `${url}/test`, ...who.auth }),
      ),
  };
}

type SignedIn = { auth: { headers: Record<string, string> } };
