import { asValue } from 'awilix';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { Outbox } from '../../core/bus/outbox.js';
import type { Db } from '../../core/data/db.js';
import { KEYS } from '../../core/kernel/keys.js';
import { optional } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { billingOptionsSchema, type BillingOptions } from './options.js';
import { billingRoutes } from './routes/billing.js';
import { claimRoutes } from './routes/claims.js';
import { registerHostedPages } from './routes/hosted-pages.js';
import { referralRoutes } from './routes/referrals.js';
import { staffRoutes } from './routes/staff.js';
import { webhookRoutes } from './routes/webhooks.js';
import { CreditLedger, createBillingServices } from './services/index.js';
import type { BillingDeps } from './services/deps.js';
import { BillingPlanCatalog } from './services/plans.js';
import { RESALE_TEMPLATES } from './services/resale.js';
import { SPEND_TEMPLATES } from './services/spend-alerts.js';

/**
 * Billing: plans and their limits, subscriptions through the payment provider (checkout with a
 * first-subscription trial, prorated plan switch, cancel at period end, portal), the open-source
 * plan, top-ups, add-ons, agency resale and payout onboarding, the credits ledger, the spend cap,
 * invoices, claims and referrals. docs/billing.md describes it.
 *
 * Container keys it provides: `planCatalog` (the accounts catalogue with billing's numbers),
 * `billingGate` (authorizeJob / recordJobCost for the fix loop), `planLimits` (assert),
 * `creditLedger` (grants by other plugins, e.g. sponsored credits), `billingClaims` (staff
 * decisions), `referrals` (credit a referred signup).
 */
export default definePlugin<BillingOptions>({
  name: 'billing',
  version: '1.0.0',
  requires: ['accounts'],
  options: billingOptionsSchema,
  register(ctx) {
    const { container, options, config } = ctx;
    const base = container.resolve('planCatalog');
    const catalog = new BillingPlanCatalog(base, options);
    const provider = container.resolve(KEYS.paymentProvider, { allowUnregistered: true }) ?? null;
    const publicBaseUrl = config.server.publicBaseUrl.replace(/\/+$/, '');
    const deps: BillingDeps = {
      db: container.resolve<Db>(KEYS.db),
      outbox: container.resolve<Outbox>(KEYS.outbox),
      audit: container.resolve<AuditWriter>(KEYS.audit),
      log: ctx.log,
      options,
      catalog,
      ledger: new CreditLedger(),
      provider,
      // The mail plugin may register after billing: look the mailer up when mail is sent.
      get mailer() {
        return optional(container, 'mailer') ?? null;
      },
      publicBaseUrl,
      clock: () => new Date(),
    };
    const s = createBillingServices(deps);

    ctx.provide({
      planCatalog: asValue(catalog),
      billingGate: asValue(s.gate),
      planLimits: asValue(s.limits),
      creditLedger: asValue(s.ledger),
      billingClaims: asValue(s.claims),
      referrals: asValue(s.referrals),
      // The privacy plugin ends the subscription of a closing organization through billing.
      billingActions: asValue(s.actions),
    });

    ctx.routes([...billingRoutes(s), ...webhookRoutes(s), ...claimRoutes(s), ...referralRoutes(s), ...staffRoutes(s)]);
    if (provider) registerHostedPages(ctx.server, provider, publicBaseUrl);

    deps.mailer?.registerTemplates([...SPEND_TEMPLATES, ...RESALE_TEMPLATES]);

    // Extra workspaces are billed on the subscription: a workspace created or archived, or a plan
    // or status change, sets the provider's quantity again. The sync reads the current count and
    // calls the provider outside any transaction, so it is idempotent without the inbox (a
    // repeated message finds nothing to change); a failure throws and the bus retries.
    ctx.consume(
      'extra-workspaces',
      ['workspaces.created', 'workspaces.archived', 'billing.subscription_changed'],
      async (message) => {
        const orgId = message.orgId ?? (message.payload as { org_id?: string }).org_id;
        if (orgId) await s.extraWorkspaces.sync(orgId);
      },
      { idempotent: false },
    );
    ctx.schedule('sync-extra-workspaces', { everyMs: 30 * 60_000 }, async () => {
      await s.extraWorkspaces.sweep();
    });

    // A referred signup credits its referrer once (the sweep below catches what this misses).
    ctx.consume('credit-referral', ['accounts.organization_created'], async (message, scope) => {
      const payload = message.payload as { org_id?: string; referred_by_code?: string | null };
      if (!payload.org_id || !payload.referred_by_code) return;
      const trx = scope.cradle.trx;
      await s.referrals.credit(trx, payload.org_id);
    });
    ctx.schedule('expire-credits', { everyMs: 60 * 60_000 }, async () => {
      await s.ledger.expireDue(deps.db, deps.clock());
    });
    ctx.schedule('credit-referrals', { everyMs: 10 * 60_000 }, async () => {
      await s.referrals.sweep(deps.db);
    });
  },
});
