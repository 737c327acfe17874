import type { Knex } from 'knex';
import type { SubscriptionStatus } from '../../../core/contracts/index.js';
import type { SignedInActor } from '../../../core/http/actor.js';
import { conflict, invalidRequest, notFound } from '../../../core/http/errors.js';
import { num } from '../models.js';
import type { AccountStore } from './account-store.js';
import { auditBilling } from './billing-audit.js';
import type { BillingDeps } from './deps.js';
import { providerCall, requireProvider } from './provider-call.js';
import type { Resales } from './resale.js';
import { LIVE_STATUSES } from './subscription-status.js';

/**
 * The add-ons of a subscription and the agency's client billing: badge removal, managed
 * workspaces, resale settings and the payout account's onboarding. As in BillingActions, provider
 * calls happen outside any transaction, and what they return is applied with its audit entry.
 */
export class AddonActions {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly resales: Resales,
  ) {}

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
      await auditBilling(
        this.d,
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
      await auditBilling(
        this.d,
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
      await auditBilling(
        this.d,
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
    const provider = requireProvider(this.d);
    const org = await this.agencyOrg(actor.orgId);
    const base = `${this.d.publicBaseUrl}${this.d.options.returnPath}`;
    const link = await providerCall(this.d, () =>
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
        await auditBilling(
          this.d,
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
    await providerCall(this.d, () => provider.updateAddons!({ subscriptionId, addons }, key));
  }
}
