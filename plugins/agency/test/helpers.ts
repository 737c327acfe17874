import type { App } from '../../../core/kernel/app.js';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { call, type Call } from '../../../test/helpers/call.js';

export type { Json } from '../../../test/helpers/call.js';

/** A call to `app` as `who` (null: anonymous): status and parsed body. */
export const caller =
  (app: App) =>
  (who: SignedUp | null, method: string, url: string, payload?: unknown): Promise<Call> =>
    call(app, who, method, url, payload);

/** The owner of the agency "Pixel Agency", on the agency plan. */
export async function signUpAgency(app: App): Promise<SignedUp> {
  const agency = await signUp(app, { orgName: 'Pixel Agency', organizationType: 'agency' });
  await app.db('organizations').where({ id: agency.organization.id }).update({ plan: 'agency' });
  return agency;
}
