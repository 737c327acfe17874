import type { createBillingServices } from './services/index.js';

type Services = ReturnType<typeof createBillingServices>;

/** What the billing plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    billingGate: Services['gate'];
    planLimits: Services['limits'];
    creditLedger: Services['ledger'];
    billingClaims: Services['claims'];
    referrals: Services['referrals'];
    billingActions: Services['actions'];
  }
}
