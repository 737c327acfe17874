import { isAdapterError, type SubscriptionStatus } from '../../../core/contracts/index.js';
import type { BillingAccount } from '../models.js';
import type { AccountStore } from './account-store.js';
import { BILLING, type BillingDeps } from './deps.js';
import type { PlanLimits } from './limits.js';
import { OneAtATime } from './one-at-a-time.js';
import { providerCall } from './provider-call.js';
import { LIVE_STATUSES } from './subscription-status.js';

export interface ExtraWorkspaceSync {
  /** Extra workspaces the subscription is billed for after the call. */
  quantity: number;
  changed: boolean;
  /** Why nothing was sent: `no_subscription`, `not_billed` (provider without the operation), `unchanged`. */
  reason?: string;
}

/**
 * Keeps the provider's `extra_workspace` quantity equal to the workspaces beyond the plan's
 * included ones, on a running subscription of a plan that prices them. Runs when a workspace is
 * created or archived and when the subscription changes (bus), and in a sweep; each run reads
 * the current count, so runs in any order converge and a repeated one sends nothing.
 *
 * The provider call is made outside any transaction (payment-local answers through the service's
 * own webhook meanwhile). Each change sent gets the next number of `extra_workspace_sync_seq` in
 * its idempotency key, with the quantity: a retry after a failure reuses the key, a later change
 * never does.
 */
export class ExtraWorkspaces {
  private readonly queue = new OneAtATime();

  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly limits: PlanLimits,
  ) {}

  /** The quantity the subscription should carry now (with the billing account it was read from). */
  async wanted(
    orgId: string,
  ): Promise<{ quantity: number; subscriptionId: string | null; live: boolean; account: BillingAccount }> {
    const org = await this.store.org(this.d.db, orgId);
    const account = await this.store.account(this.d.db, orgId);
    const live =
      LIVE_STATUSES.includes(org.subscription_status as SubscriptionStatus) && Boolean(account.subscription_id);
    const n = this.d.catalog.numbers(org.plan);
    if (!live || n.extra_workspace_price_usd <= 0)
      return { quantity: 0, subscriptionId: account.subscription_id, live, account };
    const used = await this.limits.countWorkspaces(this.d.db, orgId);
    return {
      quantity: Math.max(0, used - n.workspaces_included),
      subscriptionId: account.subscription_id,
      live,
      account,
    };
  }

  /** Brings the provider in line; runs one at a time per organization in this process. */
  sync(orgId: string): Promise<ExtraWorkspaceSync> {
    return this.queue.run(orgId, () => this.syncNow(orgId));
  }

  private async syncNow(orgId: string): Promise<ExtraWorkspaceSync> {
    const want = await this.wanted(orgId);
    const account = want.account;
    if (!want.live) {
      // A canceled subscription bills nothing; the provider's side ended with it.
      if (account.extra_workspace_quantity !== 0)
        await this.store.patchAccount(this.d.db, orgId, { extra_workspace_quantity: 0 });
      return { quantity: 0, changed: false, reason: 'no_subscription' };
    }
    if (want.quantity === account.extra_workspace_quantity)
      return { quantity: want.quantity, changed: false, reason: 'unchanged' };
    const provider = this.d.provider;
    if (!provider?.setSubscriptionItemQuantity)
      return { quantity: account.extra_workspace_quantity, changed: false, reason: 'not_billed' };
    const seq = account.extra_workspace_sync_seq + 1;
    try {
      await provider.setSubscriptionItemQuantity(
        { subscriptionId: want.subscriptionId!, item: 'extra_workspace', quantity: want.quantity },
        `extra-ws:${orgId}:${want.subscriptionId}:${seq}:${want.quantity}`,
      );
    } catch (err) {
      // A subscription the provider does not know (or no longer runs) cannot be fixed by retrying.
      if (isAdapterError(err, 'not_found') || isAdapterError(err, 'subscription_canceled')) {
        this.d.log.warn({ err, orgId }, 'extra workspaces not billed: the provider does not know the subscription');
        return { quantity: account.extra_workspace_quantity, changed: false, reason: 'unknown_subscription' };
      }
      // Rethrown through providerCall, which answers the provider's other failures as HTTP errors.
      await providerCall<never>(this.d, () => {
        throw err;
      });
    }
    await this.d.db.transaction(async (trx) => {
      await this.store.account(trx, orgId, { lock: true });
      await this.store.patchAccount(trx, orgId, {
        extra_workspace_quantity: want.quantity,
        extra_workspace_sync_seq: seq,
      });
      await this.d.audit.record(trx, {
        orgId,
        actor: BILLING,
        action: 'billing.extra_workspaces_changed',
        target: { type: 'subscription', id: want.subscriptionId },
        changes: { extra_workspace_quantity: { before: account.extra_workspace_quantity, after: want.quantity } },
      });
      await this.d.outbox.add(
        trx,
        'billing.extra_workspaces_changed',
        { org_id: orgId, quantity: want.quantity, previous_quantity: account.extra_workspace_quantity },
        { orgId },
      );
    });
    return { quantity: want.quantity, changed: true };
  }

  /** Organizations whose billed quantity may be off (a missed event): live subscriptions, oldest check first. */
  async sweep(limit = 200): Promise<number> {
    const rows: { org_id: string }[] = await this.d
      .db('billing_accounts as a')
      .join('organizations as o', 'o.id', 'a.org_id')
      .whereNotNull('a.subscription_id')
      .whereIn('o.subscription_status', LIVE_STATUSES as string[])
      .orderBy('a.updated_at')
      .limit(limit)
      .select('a.org_id');
    let changed = 0;
    for (const { org_id } of rows) {
      try {
        if ((await this.sync(org_id)).changed) changed++;
      } catch (err) {
        this.d.log.warn({ err, orgId: org_id }, 'extra workspaces sync failed; the next sweep retries');
      }
    }
    return changed;
  }
}
