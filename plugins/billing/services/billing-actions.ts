import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import {
  type PaidPlanId,
  type PaymentProvider,
  type SubscriptionStatus,
  type TopupPackId,
} from '../../../core/contracts/index.js';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import type { SignedInActor } from '../../../core/http/actor.js';
import { conflict, invalidRequest, notFound } from '../../../core/http/errors.js';
import { num } from '../models.js';
import type { AccountStore } from './account-store.js';
import type { BillingDeps } from './deps.js';
import type { BillingView } from './billing-view.js';
import type { PriceCache } from './prices.js';
import { providerCall } from './provider-call.js';
import type { Resales } from './resale.js';
import { LIVE_STATUSES } from './subscription-status.js';

/**
 * The billing operations that change something. Calls to the payment provider happen outside
 * any database transaction (a provider may answer through our own webhook in the meantime);
 * what they return is then applied in one transaction with its audit entry.
 */
export class BillingActions {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly view: BillingView,
    private readonly prices: PriceCache,
    private readonly resales: Resales,
  ) {}

  private provider(): PaymentProvider {
    if (!this.d.provider) throw conflict('payments_disabled', 'Payments are not enabled on this service');
    return this.d.provider;
  }

  private urls(query: string) {
    const base = `${this.d.publicBaseUrl}${this.d.options.returnPath}`;
    return { successUrl: `${base}?${query}=success`, cancelUrl: `${base}?${query}=canceled`, returnUrl: base };
  }

  private async audit(
    trx: Knex,
    orgId: string,
    actor: AuditedActor,
    action: string,
    target: { type: string; id: string | null },
    changes?: Record<string, { before: unknown; after: unknown }>,
    extra: { workspaceId?: string | null; metadata?: Record<string, unknown> } = {},
  ): Promise<void> {
    await this.d.audit.record(trx, { orgId, actor, action, target, changes, ...extra });
  }

  async checkout(actor: SignedInActor, plan: PaidPlanId, key: string): Promise<string> {
    const provider = this.provider();
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
    const session = await this.call(() =>
      provider.createCheckout(
        {
          mode: 'subscription',
          plan,
          trialDays,
          customer: {
            orgId: org.id,
            customerId: account.customer_id,
            email: org.billing_email ?? actor.email ?? '',
            name: org.name,
          },
          ...this.urls('checkout'),
        },
        `checkout:${org.id}:${key}`,
      ),
    );
    await this.d.db.transaction(async (trx) => {
      await this.recordCheckout(trx, org.id, provider.identifier, session.checkoutId, 'subscription', {
        plan,
        trialDays,
        userId: actor.userId,
      });
      if (session.customerId && !account.customer_id)
        await this.store.patchAccount(trx, org.id, { customer_id: session.customerId, provider: provider.identifier });
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.checkout_started',
        { type: 'checkout', id: session.checkoutId },
        undefined,
        { metadata: { plan, trial_days: trialDays } },
      );
    });
    return session.url;
  }

  async topup(actor: SignedInActor, pack: TopupPackId, key: string): Promise<string> {
    const provider = this.provider();
    const org = await this.store.org(this.d.db, actor.orgId);
    if (org.plan === 'none') throw conflict('topups_not_available', 'Top-ups need a plan first');
    if ((await this.prices.topup(pack)) === null)
      throw conflict('topups_not_available', `The ${pack} pack is not on sale`);
    const account = await this.store.account(this.d.db, actor.orgId);
    const session = await this.call(() =>
      provider.createCheckout(
        {
          mode: 'topup',
          pack,
          customer: {
            orgId: org.id,
            customerId: account.customer_id,
            email: org.billing_email ?? actor.email ?? '',
            name: org.name,
          },
          ...this.urls('topup'),
        },
        `topup:${org.id}:${key}`,
      ),
    );
    await this.d.db.transaction(async (trx) => {
      await this.recordCheckout(trx, org.id, provider.identifier, session.checkoutId, 'topup', {
        pack,
        trialDays: 0,
        userId: actor.userId,
      });
      if (session.customerId && !account.customer_id)
        await this.store.patchAccount(trx, org.id, { customer_id: session.customerId, provider: provider.identifier });
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.topup_started',
        { type: 'checkout', id: session.checkoutId },
        undefined,
        { metadata: { pack } },
      );
    });
    return session.url;
  }

  async changePlan(actor: SignedInActor, plan: PaidPlanId, key: string): Promise<void> {
    const provider = this.provider();
    const { org, account } = await this.liveSubscription(actor.orgId);
    if (org.plan === plan) return;
    if ((await this.prices.plan(plan)) === null)
      throw conflict('plan_not_available', `The ${plan} plan is not on sale`);
    const state = await this.call(() =>
      provider.changePlan({ subscriptionId: account.subscription_id!, plan }, `plan:${org.id}:${key}`),
    );
    await this.d.db.transaction(async (trx) => {
      await this.store.applySubscription(trx, org.id, state, null, actor);
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.plan_switched',
        { type: 'subscription', id: state.subscriptionId },
        { plan: { before: org.plan, after: plan } },
      );
    });
  }

  async cancel(actor: SignedInActor, key: string): Promise<void> {
    const provider = this.provider();
    const { org, account } = await this.liveSubscription(actor.orgId);
    if (account.cancel_at_period_end) return;
    const state = await this.call(() =>
      provider.cancelAtPeriodEnd(account.subscription_id!, `cancel:${org.id}:${key}`),
    );
    await this.d.db.transaction(async (trx) => {
      await this.store.applySubscription(trx, org.id, state, null, actor);
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.subscription_cancel_requested',
        { type: 'subscription', id: state.subscriptionId },
        { cancel_at_period_end: { before: false, after: true } },
      );
    });
  }

  async portal(actor: SignedInActor, key: string): Promise<string> {
    const provider = this.provider();
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
      await this.audit(
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
      await this.audit(
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
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.spend_cap_changed',
        { type: 'organization', id: org.id },
        { spend_cap_usd: { before, after: capUsd } },
      );
    });
  }

  async setBadgeRemoval(actor: SignedInActor, enabled: boolean, key: string): Promise<void> {
    const org = await this.store.org(this.d.db, actor.orgId);
    const account = await this.store.account(this.d.db, actor.orgId);
    if (org.badge_removal_addon === enabled) return;
    const status = org.subscription_status as SubscriptionStatus;
    if (
      enabled &&
      (!this.d.options.addons.badgeRemovalPlans.includes(org.plan) ||
        !(LIVE_STATUSES.includes(status) || status === 'lifetime'))
    ) {
      throw conflict(
        'addon_not_available',
        `The badge removal add-on is available on the ${this.d.options.addons.badgeRemovalPlans.join(', ')} plan`,
        { plan: org.plan },
      );
    }
    await this.syncAddons(
      account.subscription_id,
      status,
      { badge_removal: enabled ? 1 : 0 },
      `badge:${org.id}:${key}`,
    );
    await this.d.db.transaction(async (trx) => {
      await this.store.patchOrg(trx, org.id, { badge_removal_addon: enabled });
      await this.store.patchAccount(trx, org.id, { badge_removal_quantity: enabled ? 1 : 0 });
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.badge_removal_changed',
        { type: 'organization', id: org.id },
        { badge_removal_addon: { before: org.badge_removal_addon, after: enabled } },
      );
      await this.d.outbox.add(
        trx,
        'billing.addons_changed',
        { org_id: org.id, badge_removal: enabled },
        { orgId: org.id },
      );
    });
  }

  async setManaged(actor: SignedInActor, workspaceId: string, enabled: boolean, key: string): Promise<void> {
    const org = await this.agencyOrg(actor.orgId);
    const ws = await this.workspace(this.d.db, org.id, workspaceId);
    if (ws.managed_addon === enabled) return;
    const account = await this.store.account(this.d.db, org.id);
    const count = Number(
      (
        (await this.d
          .db('workspaces')
          .where({ org_id: org.id, managed_addon: true })
          .whereNull('archived_at')
          .count({ n: '*' })
          .first()) as { n: number | string }
      ).n,
    );
    const quantity = Math.max(0, count + (enabled ? 1 : -1));
    await this.syncAddons(
      account.subscription_id,
      org.subscription_status as SubscriptionStatus,
      { managed_workspace: quantity },
      `managed:${org.id}:${workspaceId}:${key}`,
    );
    await this.d.db.transaction(async (trx) => {
      await trx('workspaces')
        .where({ id: ws.id, org_id: org.id })
        .update({ managed_addon: enabled, updated_at: this.d.clock() });
      await this.store.patchAccount(trx, org.id, { managed_workspace_quantity: quantity });
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.workspace_managed_changed',
        { type: 'workspace', id: ws.id },
        { managed_addon: { before: ws.managed_addon, after: enabled } },
        { workspaceId: ws.id },
      );
      await this.d.outbox.add(
        trx,
        'billing.workspace_managed_changed',
        { org_id: org.id, workspace_id: ws.id, managed_addon: enabled },
        { orgId: org.id },
      );
    });
  }

  /**
   * Stores the resale settings, then (outside the transaction) brings the collection through the
   * payout account in line with them: started, repriced or stopped (services/resale.ts).
   */
  async setResale(
    actor: SignedInActor,
    workspaceId: string,
    input: { resale_price_usd: number; collect_via_connect: boolean; client_email?: string | null },
  ): Promise<void> {
    const org = await this.agencyOrg(actor.orgId);
    let collects = false;
    await this.d.db.transaction(async (trx) => {
      const ws = await this.workspace(trx, org.id, workspaceId);
      const clientEmail = input.client_email === undefined ? ws.resale_client_email : input.client_email;
      const live = await this.resales.live(trx, org.id, ws.id);
      collects = input.collect_via_connect || live !== null;
      if (input.collect_via_connect) {
        const account = await this.store.account(trx, org.id);
        if (!org.payment_connect_account_id || !org.connect_charges_enabled || !account.connect_payouts_enabled) {
          throw conflict('connect_not_ready', 'Finish the payout account onboarding before collecting through it', {
            account_id: org.payment_connect_account_id,
            charges_enabled: org.connect_charges_enabled,
            payouts_enabled: account.connect_payouts_enabled,
            message_it: 'Completa la configurazione del conto di incasso prima di riscuotere tramite esso',
          });
        }
        if (!this.d.provider?.startResaleCollection)
          throw conflict('not_supported', 'The payment provider cannot collect resale payments');
        if (!clientEmail)
          throw invalidRequest(
            new Error('client_email is required to collect from the client'),
            'payload.client_email',
          );
      }
      const before = {
        resale_price: ws.resale_price === null ? null : num(ws.resale_price),
        collect_via_connect: ws.collect_via_connect,
        client_email: ws.resale_client_email,
      };
      const after = {
        resale_price: input.resale_price_usd,
        collect_via_connect: input.collect_via_connect,
        client_email: clientEmail ?? null,
      };
      await trx('workspaces').where({ id: ws.id, org_id: org.id }).update({
        resale_price: after.resale_price,
        collect_via_connect: after.collect_via_connect,
        resale_client_email: after.client_email,
        updated_at: this.d.clock(),
      });
      const changes: Record<string, { before: unknown; after: unknown }> = {};
      for (const k of Object.keys(after) as (keyof typeof after)[])
        if (before[k] !== after[k]) changes[k] = { before: before[k], after: after[k] };
      if (Object.keys(changes).length === 0) return;
      await this.audit(
        trx,
        org.id,
        actor,
        'billing.workspace_resale_changed',
        { type: 'workspace', id: ws.id },
        changes,
        { workspaceId: ws.id },
      );
      await this.d.outbox.add(
        trx,
        'billing.workspace_resale_changed',
        { org_id: org.id, workspace_id: ws.id, ...after },
        { orgId: org.id },
      );
    });
    // Also when nothing changed: a request retried after a provider failure finishes the job.
    if (collects) await this.resales.reconcile(org.id, workspaceId, actor);
  }

  async connectOnboarding(actor: SignedInActor, country: string, key: string): Promise<string> {
    const provider = this.provider();
    const org = await this.agencyOrg(actor.orgId);
    const base = `${this.d.publicBaseUrl}${this.d.options.returnPath}`;
    const link = await this.call(() =>
      provider.createConnectOnboarding(
        {
          orgId: org.id,
          accountId: org.payment_connect_account_id,
          country,
          email: org.billing_email ?? actor.email ?? '',
          returnUrl: `${base}?connect=return`,
          refreshUrl: `${base}?connect=refresh`,
        },
        `connect:${org.id}:${key}`,
      ),
    );
    if (link.accountId !== org.payment_connect_account_id) {
      await this.d.db.transaction(async (trx) => {
        await this.store.patchOrg(trx, org.id, { payment_connect_account_id: link.accountId });
        await this.store.account(trx, org.id);
        await this.store.patchAccount(trx, org.id, { connect_country: country });
        await this.audit(
          trx,
          org.id,
          actor,
          'billing.connect_account_created',
          { type: 'payout_account', id: link.accountId },
          { payment_connect_account_id: { before: org.payment_connect_account_id, after: link.accountId } },
          { metadata: { country } },
        );
      });
    }
    return link.url;
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

  private async agencyOrg(orgId: string) {
    const org = await this.store.org(this.d.db, orgId);
    if (!this.d.options.addons.agencyPlans.includes(org.plan)) {
      throw conflict('agency_plan_required', `This needs the ${this.d.options.addons.agencyPlans.join(', ')} plan`, {
        plan: org.plan,
      });
    }
    return org;
  }

  private async workspace(db: Knex, orgId: string, id: string) {
    const ws = (await db('workspaces').where({ id, org_id: orgId }).whereNull('archived_at').first()) as
      | {
          id: string;
          managed_addon: boolean;
          resale_price: string | number | null;
          collect_via_connect: boolean;
          resale_client_email: string | null;
        }
      | undefined;
    if (!ws) throw notFound('workspace');
    return ws;
  }

  private async syncAddons(
    subscriptionId: string | null,
    status: SubscriptionStatus,
    addons: { badge_removal?: number; managed_workspace?: number },
    key: string,
  ): Promise<void> {
    const provider = this.d.provider;
    if (!provider?.updateAddons || !subscriptionId || !LIVE_STATUSES.includes(status)) return;
    await this.call(() => provider.updateAddons!({ subscriptionId, addons }, key));
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
