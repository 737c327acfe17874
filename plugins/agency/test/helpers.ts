import type { App } from '../../../core/kernel/app.js';
import { signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { callOn } from '../../../test/helpers/call.js';

/** A call to `app` as `who` (null: anonymous): status and parsed body. */
export const caller = callOn;

/** The owner of the agency "Pixel Agency", on the agency plan. */
export async function signUpAgency(app: App): Promise<SignedUp> {
  const agency = await signUp(app, { orgName: 'Pixel Agency', organizationType: 'agency' });
  await app.db('organizations').where({ id: agency.organization.id }).update({ plan: 'agency' });
  return agency;
}
