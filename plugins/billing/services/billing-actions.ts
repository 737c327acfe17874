import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import type {
  PaidPlanId,
  PaymentProvider,
  SubscriptionState,
  SubscriptionStatus,
  TopupPackId,
} from '../../../core/contracts/index.js';
import type { SignedInActor } from '../../../core/http/actor.js';
import { conflict } from '../../../core/http/errors.js';
import { num, type BillingAccount, type OrgRow } from '../models.js';
import type { AccountStore } from './account-store.js';
import { auditBilling } from './billing-audit.js';
import type { BillingDeps } from './deps.js';
import type { BillingView } from './billing-view.js';
import type { PriceCache } from './prices.js';
import { providerCall, requireProvider } from './provider-call.js';
import { LIVE_STATUSES } from './subscription-status.js';

/**
 * The billing operations that change the organization's plan and spending: checkout, top-ups,
 * plan switch, cancellation, the provider's portal, the open-source plan, overage and spend cap
 * (add-ons and agency resale: AddonActions). Calls to the payment provider happen outside
 * any database transaction (a provider may answer through our own webhook in the meantime);
 * what they return is then applied in one transaction with its audit entry.
 */
export class BillingActions {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly view: BillingView,
    private readonly prices: PriceCache,
  ) {}

  private urls(query: string) {
    const base = `${this.d.publicBaseUrl}${this.d.options.returnPath}`;
    return { successUrl: `${base}?${query}=success`, cancelUrl: `${base}?${query}=canceled`, returnUrl: base };
  }

  async checkout(actor: SignedInActor, plan: PaidPlanId, key: string): Promise<string> {
    const provider = requireProvider(this.d);
    const org = await this.store.org(this.d.db, actor.orgId);
    const account = await this.store.account(this.d.db, actor.orgId);
    const status = org.subscription_status as SubscriptionStatus;
    if (status === 'lifetime') throw conflict('subscription_exists', 'This organization has a lifetime plan');
    if (LIVE_STATUSES.includes(status))
      throw conflict('subscription_exists', 'This organization already has a subscription; switch its plan instead', {
        plan: org.plan,
      });
    if ((await this.prices.plan(plan)) === null)
      throw conflict('plan_not_available', `The ${plan} plan is not on sale`);
    const trialDays = this.view.trialAvailable(account) ? this.d.options.trialDays : 0;
    return this.openCheckout(actor, provider, org, account, { mode: 'subscription', plan, trialDays }, key, {
      action: 'billing.checkout_started',
      metadata: { plan, trial_days: trialDays },
    });
  }

  async topup(actor: SignedInActor, pack: TopupPackId, key: string): Promise<string> {
    const provider = requireProvider(this.d);
    const org = await this.store.org(this.d.db, actor.orgId);
    if (org.plan === 'none') throw conflict('topups_not_available', 'Top-ups need a plan first');
    if ((await this.prices.topup(pack)) === null)
      throw conflict('topups_not_available', `The ${pack} pack is not on sale`);
    const account = await this.store.account(this.d.db, actor.orgId);
    return this.openCheckout(actor, provider, org, account, { mode: 'topup', pack }, key, {
      action: 'billing.topup_started',
      metadata: { pack },
    });
  }

  /**
   * Opens the provider's checkout page (outside any transaction), then records the checkout, the
   * customer id the provider may have created and the audit entry in one transaction.
   */
  private async openCheckout(
    actor: SignedInActor,
    provider: PaymentProvider,
    org: OrgRow,
    account: BillingAccount,
    purchase: { mode: 'subscription'; plan: PaidPlanId; trialDays: number } | { mode: 'topup'; pack: TopupPackId },
    key: string,
    audit: { action: string; metadata: Record<string, unknown> },
  ): Promise<string> {
    const page = purchase.mode === 'subscription' ? 'checkout' : 'topup';
    const customer = {
      orgId: org.id,
      customerId: account.customer_id,
      email: org.billing_email ?? actor.email ?? '',
      name: org.name,
    };
    const session = await this.call(() =>
      provider.createCheckout({ ...purchase, customer, ...this.urls(page) }, `${page}:${org.id}:${key}`),
    );
    const bought =
      purchase.mode === 'subscription'
        ? { plan: purchase.plan, trialDays: purchase.trialDays }
        : { pack: purchase.pack, trialDays: 0 };
    await this.d.db.transaction(async (trx) => {
      await this.recordCheckout(trx, org.id, provider.identifier, session.checkoutId, purchase.mode, {
        ...bought,
        userId: actor.userId,
      });
      if (session.customerId && !account.customer_id)
        await this.store.patchAccount(trx, org.id, { customer_id: session.customerId, provider: provider.identifier });
      await auditBilling(
        this.d,
        trx,
        org.id,
        actor,
        audit.action,
        { type: 'checkout', id: session.checkoutId },
        undefined,
        {
          metadata: audit.metadata,
        },
      );
    });
    return session.url;
  }

  async changePlan(actor: SignedInActor, plan: PaidPlanId, key: string): Promise<void> {
    const provider = requireProvider(this.d);
    const { org, account } = await this.liveSubscription(actor.orgId);
    if (org.plan === plan) return;
    if ((await this.prices.plan(plan)) === null)
      throw conflict('plan_not_available', `The ${plan} plan is not on sale`);
    const state = await this.call(() =>
      provider.changePlan({ subscriptionId: account.subscription_id!, plan }, `plan:${org.id}:${key}`),
    );
    await this.applyState(actor, org.id, state, 'billing.plan_switched', { plan: { before: org.plan, after: plan } });
  }

  async cancel(actor: SignedInActor, key: string): Promise<void> {
    const provider = requireProvider(this.d);
    const { org, account } = await this.liveSubscription(actor.orgId);
    if (account.cancel_at_period_end) return;
    const state = await this.call(() =>
      provider.cancelAtPeriodEnd(account.subscription_id!, `cancel:${org.id}:${key}`),
    );
    await this.applyState(actor, org.id, state, 'billing.subscription_cancel_requested', {
      cancel_at_period_end: { before: false, after: true },
    });
  }

  async portal(actor: SignedInActor, key: string): Promise<string> {
    const provider = requireProvider(this.d);
    const account = await this.store.account(this.d.db, actor.orgId);
    if (!account.customer_id)
      throw conflict('no_customer', 'There is nothing to manage yet: start a subscription or a top-up first');
    const { url } = await this.call(() =>
      provider.createPortal(
        { customerId: account.customer_id!, returnUrl: this.urls('portal').returnUrl },
        `portal:${actor.orgId}:${key}`,
      ),
    );
    return url;
  }

  async openSource(actor: SignedInActor): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const org = await this.store.org(trx, actor.orgId, { lock: true });
      const status = org.subscription_status as SubscriptionStatus;
      if (org.plan === 'open_source') return;
      if (org.plan !== 'none' || LIVE_STATUSES.includes(status) || status === 'lifetime') {
        throw conflict('plan_exists', 'Only an organization without a plan can move to the open-source plan', {
          plan: org.plan,
        });
      }
      await this.store.patchOrg(trx, org.id, { plan: 'open_source', plan_activated_at: this.d.clock() });
      await auditBilling(
        this.d,
        trx,
        org.id,
        actor,
        'billing.open_source_enabled',
        { type: 'organization', id: org.id },
        { plan: { before: org.plan, after: 'open_source' } },
      );
      await this.d.outbox.add(
        trx,
        'billing.subscription_changed',
        { org_id: org.id, plan: 'open_source', subscription_status: status, previous_status: status },
        { orgId: org.id },
      );
      await this.store.ensurePlanCredits(trx, org.id);
    });
  }

  async setOverage(actor: SignedInActor, enabled: boolean): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const org = await this.store.org(trx, actor.orgId, { lock: true });
      if (enabled && this.d.catalog.numbers(org.plan).overage_fix_price_usd <= 0) {
        throw conflict('overage_not_available', `The ${org.plan} plan has no paid fixes beyond its credits`, {
          plan: org.plan,
        });
      }
      if (org.overage_enabled === enabled) return;
      await this.store.patchOrg(trx, org.id, { overage_enabled: enabled });
      await auditBilling(
        this.d,
        trx,
        org.id,
        actor,
        'billing.overage_changed',
        { type: 'organization', id: org.id },
        { overage_enabled: { before: org.overage_enabled, after: enabled } },
      );
    });
  }

  async setSpendCap(actor: SignedInActor, capUsd: number | null): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const org = await this.store.org(trx, actor.orgId, { lock: true });
      const before = org.spend_cap_usd === null ? null : num(org.spend_cap_usd);
      if (before === capUsd) return;
      await this.store.patchOrg(trx, org.id, { spend_cap_usd: capUsd });
      // A new cap arms the alerts again for this period.
      await this.store.account(trx, org.id);
      await this.store.patchAccount(trx, org.id, { spend_alert_period_start: null, spend_block_period_start: null });
      await auditBilling(
        this.d,
        trx,
        org.id,
        actor,
        'billing.spend_cap_changed',
        { type: 'organization', id: org.id },
        { spend_cap_usd: { before, after: capUsd } },
      );
    });
  }

  private async liveSubscription(orgId: string) {
    const org = await this.store.org(this.d.db, orgId);
    const account = await this.store.account(this.d.db, orgId);
    if (!LIVE_STATUSES.includes(org.subscription_status as SubscriptionStatus) || !account.subscription_id) {
      throw conflict('no_subscription', 'This organization has no running subscription; start one with a checkout', {
        subscription_status: org.subscription_status,
      });
    }
    return { org, account };
  }

  /** The subscription as the provider answered a change, applied with the change's audit entry. */
  private async applyState(
    actor: SignedInActor,
    orgId: string,
    state: SubscriptionState,
    action: string,
    changes: Record<string, { before: unknown; after: unknown }>,
  ): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      await this.store.applySubscription(trx, orgId, state, null, actor);
      await auditBilling(
        this.d,
        trx,
        orgId,
        actor,
        action,
        { type: 'subscription', id: state.subscriptionId },
        changes,
      );
    });
  }

  private async recordCheckout(
    trx: Knex,
    orgId: string,
    provider: string,
    checkoutId: string,
    mode: 'subscription' | 'topup',
    x: { plan?: string; pack?: string; trialDays: number; userId: string | null },
  ): Promise<void> {
    const now = this.d.clock();
    await trx('billing_checkouts')
      .insert({
        id: newId('bchk'),
        org_id: orgId,
        provider,
        provider_checkout_id: checkoutId,
        mode,
        plan: x.plan ?? null,
        pack: x.pack ?? null,
        trial_days: x.trialDays,
        created_by_user_id: x.userId,
        created_at: now,
        updated_at: now,
      })
      .onConflict(['provider', 'provider_checkout_id'])
      .ignore();
  }

  /** Provider failures become 502 payment_provider_error (retryable) or 409 with the adapter's code. */
  private call<T>(fn: () => Promise<T>): Promise<T> {
    return providerCall(this.d, fn);
  }
}
