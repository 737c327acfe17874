import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { ReferralsSchema } from '../schemas.js';
import type { BillingServices } from '../services/index.js';

/** The organization's referral code and what it earned. */
export function referralRoutes(s: BillingServices): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/referrals',
      options: {
        id: 'getReferrals',
        tags: ['referrals'],
        description: "The organization's referral code and link, and the organizations that signed up with it",
        notes: 'Each organization that signs up with the code credits the referrer once with `referral` fixes.',
        response: { status: { 200: ReferralsSchema } },
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
        handler: (request) => s.referrals.view(s.db, requirePrincipal(request).orgId),
      },
    },
  ];
}
