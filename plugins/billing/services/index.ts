import type { Knex } from 'knex';
import { AccountStore } from './account-store.js';
import { AddonActions } from './addon-actions.js';
import { BillingActions } from './billing-actions.js';
import { BillingView } from './billing-view.js';
import { Claims } from './claims.js';
import { CreditLedger } from './credit-ledger.js';
import type { BillingDeps } from './deps.js';
import { BillingGate } from './gate.js';
import { PlanLimits } from './limits.js';
import { PaymentEvents } from './payment-events.js';
import { PriceCache } from './prices.js';
import { ExtraWorkspaces } from './extra-workspaces.js';
import { Referrals } from './referrals.js';
import { Resales } from './resale.js';
import { ResaleEvents } from './resale-events.js';
import { SpendAlerts } from './spend-alerts.js';
import { StaffDesk } from './staff.js';

/** Every billing service, wired once per process. */
export interface BillingServices {
  db: Knex;
  clock: () => Date;
  deps: BillingDeps;
  store: AccountStore;
  prices: PriceCache;
  view: BillingView;
  actions: BillingActions;
  addons: AddonActions;
  events: PaymentEvents;
  gate: BillingGate;
  limits: PlanLimits;
  claims: Claims;
  referrals: Referrals;
  ledger: CreditLedger;
  extraWorkspaces: ExtraWorkspaces;
  resales: Resales;
  staff: StaffDesk;
}

export function createBillingServices(deps: BillingDeps): BillingServices {
  const store = new AccountStore(deps);
  const prices = new PriceCache(deps);
  const limits = new PlanLimits(deps, store);
  const resales = new Resales(deps);
  const view = new BillingView(deps, store, prices, limits, resales);
  // The alerts ask the gate what was spent; the gate is made next and they only ask later.
  const alerts: SpendAlerts = new SpendAlerts(deps, store, (trx, orgId, start) => gate.spent(trx, orgId, start));
  const gate: BillingGate = new BillingGate(deps, store, alerts);
  const claims = new Claims(deps);
  return {
    db: deps.db,
    clock: deps.clock,
    deps,
    store,
    prices,
    view,
    actions: new BillingActions(deps, store, view, prices),
    addons: new AddonActions(deps, store, resales),
    events: new PaymentEvents(deps, store, new ResaleEvents(deps)),
    gate,
    limits,
    claims,
    referrals: new Referrals(deps, store),
    ledger: deps.ledger,
    extraWorkspaces: new ExtraWorkspaces(deps, store, limits),
    resales,
    staff: new StaffDesk(deps, store, claims),
  };
}

export { CreditLedger };
