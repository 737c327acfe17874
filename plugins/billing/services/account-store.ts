import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { notFound } from '../../../core/http/errors.js';
import type { SubscriptionState, SubscriptionStatus } from '../../../core/contracts/index.js';
import { BillingAccount, type OrgRow } from '../models.js';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import type { BillingDeps } from './deps.js';
import { currentPeriod, type Period } from './periods.js';
import { judgeTransition, LIVE_STATUSES, statusRank, type TransitionVerdict } from './subscription-status.js';

const ORG_COLUMNS = [
  'id',
  'name',
  'slug',
  'type',
  'plan',
  'subscription_status',
  'trial_ends_at',
  'current_period_end',
  'plan_activated_at',
  'billing_email',
  'spend_cap_usd',
  'badge_removal_addon',
  'overage_enabled',
  'referral_code',
  'referred_by_code',
  'locale',
  'payment_connect_account_id',
  'connect_charges_enabled',
  'created_at',
];

/**
 * Reads and writes the organization's billing state: its `organizations` row (public fields) and
 * its `billing_accounts` row (provider ids, subscription bookkeeping). Applies subscription states
 * through the transition table and grants plan credits for each period.
 */
export class AccountStore {
  constructor(private readonly d: BillingDeps) {}

  async org(db: Knex, orgId: string, opts: { lock?: boolean } = {}): Promise<OrgRow> {
    const q = db('organizations').select(ORG_COLUMNS).where({ id: orgId }).first();
    if (opts.lock) q.forUpdate();
    const row = (await q) as OrgRow | undefined;
    if (!row) throw notFound('organization');
    return row;
  }

  /** The organization's billing account, created on first use. */
  async account(db: Knex, orgId: string, opts: { lock?: boolean } = {}): Promise<BillingAccount> {
    const q = () => {
      const b = BillingAccount.query(db).forOrg(orgId).limit(1).first();
      return opts.lock ? b.forUpdate() : b;
    };
    const found = await q();
    if (found) return found;
    const now = this.d.clock();
    await db('billing_accounts')
      .insert({
        id: newId(BillingAccount.idPrefix),
        org_id: orgId,
        provider: this.d.provider?.identifier ?? null,
        created_at: now,
        updated_at: now,
      })
      .onConflict('org_id')
      .ignore();
    return (await q())!;
  }

  async patchAccount(db: Knex, orgId: string, patch: Partial<Record<keyof BillingAccount, unknown>>): Promise<void> {
    await db('billing_accounts')
      .where({ org_id: orgId })
      .update({ ...patch, updated_at: this.d.clock() });
  }

  async patchOrg(db: Knex, orgId: string, patch: Record<string, unknown>): Promise<void> {
    await db('organizations')
      .where({ id: orgId })
      .update({ ...patch, updated_at: this.d.clock() });
  }

  /** The period usage, credits and the spend cap count in. */
  period(org: OrgRow, account: BillingAccount, now = this.d.clock()): Period {
    const live = LIVE_STATUSES.includes(org.subscription_status as SubscriptionStatus);
    return currentPeriod(
      now,
      live ? { start: account.current_period_start, end: org.current_period_end } : { start: null, end: null },
    );
  }

  async orgByCustomer(db: Knex, customerId: string): Promise<string | null> {
    const row = (await db('billing_accounts').select('org_id').where({ customer_id: customerId }).first()) as
      { org_id: string } | undefined;
    return row?.org_id ?? null;
  }

  async orgBySubscription(db: Knex, subscriptionId: string): Promise<string | null> {
    const row = (await db('billing_accounts').select('org_id').where({ subscription_id: subscriptionId }).first()) as
      { org_id: string } | undefined;
    return row?.org_id ?? null;
  }

  async orgExists(db: Knex, orgId: string | null): Promise<boolean> {
    if (!orgId) return false;
    return Boolean(await db('organizations').select('id').where({ id: orgId }).first());
  }

  /**
   * Applies a provider's subscription state to the organization, through the transition table.
   * `occurredAt` is the provider's event time (webhooks); null for the answer of our own call
   * (plan switch, cancel), which is applied without moving the event clock.
   */
  async applySubscription(
    trx: Knex,
    orgId: string,
    state: SubscriptionState,
    occurredAt: Date | null,
    actor: AuditedActor,
  ): Promise<TransitionVerdict> {
    // Lock order everywhere: the organization, then its billing account.
    const org = await this.org(trx, orgId, { lock: true });
    const account = await this.account(trx, orgId, { lock: true });
    const current = org.subscription_status as SubscriptionStatus;
    const verdict = judgeTransition(
      {
        status: current,
        subscriptionId: account.subscription_id,
        eventAt: occurredAt ? account.subscription_event_at : null,
        eventRank: account.subscription_event_rank,
      },
      { status: state.status, subscriptionId: state.subscriptionId, occurredAt: occurredAt ?? this.d.clock() },
    );
    if (!verdict.apply) return verdict;

    const now = this.d.clock();
    const canceled = state.status === 'canceled';
    const plan = canceled ? 'none' : state.plan;
    const wasLive = LIVE_STATUSES.includes(current);
    const isLive = LIVE_STATUSES.includes(state.status);
    const orgPatch: Record<string, unknown> = {
      plan,
      subscription_status: state.status,
      trial_ends_at: state.trialEndsAt,
      current_period_end: canceled ? null : state.currentPeriodEnd,
    };
    if (plan !== org.plan || (isLive && !wasLive)) orgPatch.plan_activated_at = isLive ? now : org.plan_activated_at;
    if (canceled) orgPatch.badge_removal_addon = false;
    await this.patchOrg(trx, orgId, orgPatch);

    const accountPatch: Record<string, unknown> = {
      subscription_id: state.subscriptionId,
      customer_id: account.customer_id ?? state.customerId,
      current_period_start: canceled ? null : state.currentPeriodStart,
      cancel_at_period_end: canceled ? false : state.cancelAtPeriodEnd,
    };
    if (occurredAt) {
      accountPatch.subscription_event_at = occurredAt;
      accountPatch.subscription_event_rank = statusRank(state.status);
    }
    if (isLive && !account.first_subscribed_at) accountPatch.first_subscribed_at = now;
    if (isLive || state.status === 'incomplete') accountPatch.trial_used = true;
    if (canceled)
      Object.assign(accountPatch, {
        badge_removal_quantity: 0,
        managed_workspace_quantity: 0,
        extra_workspace_quantity: 0,
      });
    await this.patchAccount(trx, orgId, accountPatch);

    const changes: Record<string, { before: unknown; after: unknown }> = {};
    if (org.plan !== plan) changes.plan = { before: org.plan, after: plan };
    if (current !== state.status) changes.subscription_status = { before: current, after: state.status };
    if (Object.keys(changes).length > 0) {
      await this.d.audit.record(trx, {
        orgId,
        actor,
        action: 'billing.subscription_changed',
        target: { type: 'subscription', id: state.subscriptionId },
        changes,
      });
      await this.d.outbox.add(
        trx,
        'billing.subscription_changed',
        { org_id: orgId, plan, subscription_status: state.status, previous_status: current },
        { orgId },
      );
    }
    await this.ensurePlanCredits(trx, orgId);
    return verdict;
  }

  /**
   * Grants the plan's fixes for the current period, once (the reference names the period):
   * trial fixes while trialing, included fixes while active, monthly included fixes for plans
   * without a subscription (open source, enterprise, lifetime). A plan upgraded within a period
   * is topped up to the new plan's allowance.
   */
  async ensurePlanCredits(trx: Knex, orgId: string): Promise<void> {
    const org = await this.org(trx, orgId);
    const account = await this.account(trx, orgId);
    const status = org.subscription_status as SubscriptionStatus;
    const numbers = this.d.catalog.numbers(org.plan);
    const now = this.d.clock();

    if (status === 'trialing' && account.subscription_id) {
      if (numbers.trial_fixes > 0) {
        await this.d.ledger.grant(trx, {
          orgId,
          source: 'plan',
          fixes: numbers.trial_fixes,
          reference: `trial:${account.subscription_id}`,
          expiresAt: org.trial_ends_at,
          note: `trial of the ${org.plan} plan`,
        });
      }
      return;
    }
    const subscribed =
      status === 'active' && account.subscription_id && account.current_period_start && org.current_period_end;
    const unsubscribed = (status === 'none' || status === 'lifetime' || status === 'canceled') && org.plan !== 'none';
    if (!subscribed && !unsubscribed) return;
    if (numbers.included_fixes_per_month <= 0) return;
    // A subscription's credits follow its own period (the provider's clock); others the calendar month.
    const period = subscribed
      ? { start: new Date(account.current_period_start!), end: new Date(org.current_period_end!) }
      : this.period(org, account, now);
    if (period.end.getTime() <= now.getTime()) return;
    const base = subscribed
      ? `period:${account.subscription_id}:${period.start.toISOString()}`
      : `month:${period.start.toISOString()}`;
    const granted = (await trx('credit_balances')
      .where({ org_id: orgId, source: 'plan' })
      .where((q) => q.where('reference', base).orWhere('reference', 'like', `${base}:%`))
      .sum({ fixes: 'granted_fixes' })
      .first()) as { fixes: number | string | null } | undefined;
    const already = Number(granted?.fixes ?? 0);
    const missing = numbers.included_fixes_per_month - already;
    if (missing <= 0) return;
    await this.d.ledger.grant(trx, {
      orgId,
      source: 'plan',
      fixes: missing,
      reference: already === 0 ? base : `${base}:${org.plan}`,
      expiresAt: period.end,
      note: `${org.plan} plan, period from ${period.start.toISOString().slice(0, 10)}`,
    });
  }
}
