import type { Knex } from 'knex';
import type { InvoiceInfo, PaymentEvent } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { money, type ResaleRow } from '../models.js';
import { BILLING, type BillingDeps } from './deps.js';

type ResaleEvent = Extract<PaymentEvent, { type: 'resale.updated' }>;

/**
 * What the payment provider says about agency resale collections (services/resale.ts): the client
 * paid the checkout, the client's subscription changed state (`resale.updated`), and the resale
 * invoices, which fill the ledger `billing_resale_charges`: what the client paid, what went to the
 * payout account and the platform fee, one paid row per workspace and period.
 */
export class ResaleEvents {
  constructor(private readonly d: BillingDeps) {}

  /** The client paid the checkout: the collection now has its subscription. */
  async checkoutCompleted(
    trx: Knex,
    event: Extract<PaymentEvent, { type: 'checkout.completed' }>,
  ): Promise<{ orgId: string | null; outcome: string }> {
    const row = (await trx('billing_resales')
      .where({ provider: this.d.provider!.identifier, checkout_id: event.checkoutId })
      .forUpdate()
      .first()) as ResaleRow | undefined;
    if (!row) return { orgId: event.orgId, outcome: 'unknown_resale_checkout' };
    await trx('billing_resales')
      .where({ id: row.id })
      .update({
        customer_id: event.customerId,
        subscription_id: row.subscription_id ?? event.subscriptionId,
        checkout_url: null,
        updated_at: this.d.clock(),
      });
    return { orgId: row.org_id, outcome: 'resale_checkout_completed' };
  }

  /** A state of the client's subscription, applied in provider time order (an older event changes nothing). */
  async updated(trx: Knex, event: ResaleEvent): Promise<{ orgId: string | null; outcome: string }> {
    const r = event.resale;
    const provider = this.d.provider!.identifier;
    let row = (await trx('billing_resales')
      .where({ provider, subscription_id: r.subscriptionId })
      .forUpdate()
      .first()) as ResaleRow | undefined;
    if (!row && event.orgId) {
      // The subscription's first state may come before checkout.completed: the workspace's open collection.
      row = (await trx('billing_resales')
        .where({ org_id: event.orgId, workspace_id: r.workspaceId })
        .whereNull('subscription_id')
        .orderBy('created_at', 'desc')
        .forUpdate()
        .first()) as ResaleRow | undefined;
    }
    if (!row) return { orgId: event.orgId, outcome: 'unknown_resale' };
    if (row.event_at && new Date(row.event_at).getTime() > event.occurredAt.getTime())
      return { orgId: row.org_id, outcome: 'skipped:stale' };
    const status = r.status;
    await trx('billing_resales').where({ id: row.id }).update({
      subscription_id: r.subscriptionId,
      customer_id: r.customerId,
      status,
      amount_usd: r.amountUsd,
      cancel_at_period_end: r.cancelAtPeriodEnd,
      current_period_start: r.currentPeriodStart,
      current_period_end: r.currentPeriodEnd,
      checkout_url: null,
      event_at: event.occurredAt,
      updated_at: this.d.clock(),
    });
    if (row.status !== status) {
      await this.d.audit.record(trx, {
        orgId: row.org_id,
        actor: BILLING,
        action: 'billing.resale_status_changed',
        target: { type: 'workspace', id: row.workspace_id },
        workspaceId: row.workspace_id,
        changes: { status: { before: row.status, after: status } },
        metadata: { subscription_id: r.subscriptionId },
      });
      await this.d.outbox.add(
        trx,
        'billing.resale_status_changed',
        { org_id: row.org_id, workspace_id: row.workspace_id, status, previous_status: row.status },
        { orgId: row.org_id },
      );
    }
    return { orgId: row.org_id, outcome: `resale_${status}` };
  }

  /** The organization of a resale invoice without org metadata. */
  async orgOf(trx: Knex, subscriptionId: string | null): Promise<string | null> {
    if (!subscriptionId) return null;
    const row = (await trx('billing_resales')
      .select('org_id')
      .where({ provider: this.d.provider!.identifier, subscription_id: subscriptionId })
      .first()) as { org_id: string } | undefined;
    return row?.org_id ?? null;
  }

  /**
   * Records a resale invoice in the ledger: once per provider invoice, and a period is recorded
   * as charged once (a second paid invoice for the same workspace and period is reported, not
   * counted).
   */
  async recordCharge(
    trx: Knex,
    orgId: string,
    inv: InvoiceInfo,
    status: 'paid' | 'payment_failed',
    occurredAt: Date,
  ): Promise<string> {
    const provider = this.d.provider!.identifier;
    const resale = inv.subscriptionId
      ? ((await trx('billing_resales').where({ provider, subscription_id: inv.subscriptionId }).first()) as
          ResaleRow | undefined)
      : undefined;
    const workspaceId = inv.workspaceId ?? resale?.workspace_id ?? null;
    if (!workspaceId || !inv.periodStart) return 'resale_invoice_without_workspace';
    const existing = (await trx('billing_resale_charges')
      .where({ provider, provider_invoice_id: inv.invoiceId })
      .forUpdate()
      .first()) as { id: string; status: string } | undefined;
    const amount = status === 'paid' ? inv.amountPaidUsd : inv.amountDueUsd;
    const fields = {
      status,
      amount_usd: money(amount),
      platform_fee_usd: money(inv.transfer?.platformFeeUsd ?? 0),
      transferred_usd: money(inv.transfer?.amountUsd ?? 0),
      destination_account_id: inv.transfer?.destinationAccountId ?? resale?.destination_account_id ?? null,
      paid_at: status === 'paid' ? occurredAt : null,
      updated_at: this.d.clock(),
    };
    if (existing?.status === 'paid') return 'resale_charge_already_recorded';
    if (status === 'paid') {
      const samePeriod = (await trx('billing_resale_charges')
        .where({ org_id: orgId, workspace_id: workspaceId, period_start: inv.periodStart, status: 'paid' })
        .whereNot('provider_invoice_id', inv.invoiceId)
        .first()) as { provider_invoice_id: string } | undefined;
      if (samePeriod) {
        this.d.log.error(
          { orgId, workspaceId, invoiceId: inv.invoiceId, first: samePeriod.provider_invoice_id },
          'a second resale invoice was paid for the same period',
        );
        return 'skipped:period_already_charged';
      }
    }
    if (existing) await trx('billing_resale_charges').where({ id: existing.id }).update(fields);
    else {
      await trx('billing_resale_charges').insert({
        id: newId('brc'),
        org_id: orgId,
        workspace_id: workspaceId,
        resale_id: resale?.id ?? null,
        provider,
        provider_invoice_id: inv.invoiceId,
        subscription_id: inv.subscriptionId,
        period_start: inv.periodStart,
        period_end: inv.periodEnd,
        created_at: occurredAt,
        ...fields,
      });
    }
    if (status === 'paid') {
      await this.d.audit.record(trx, {
        orgId,
        actor: BILLING,
        action: 'billing.resale_charged',
        target: { type: 'workspace', id: workspaceId },
        workspaceId,
        metadata: {
          invoice_id: inv.invoiceId,
          amount_usd: fields.amount_usd,
          platform_fee_usd: fields.platform_fee_usd,
          transferred_usd: fields.transferred_usd,
          period_start: inv.periodStart.toISOString(),
        },
      });
    }
    return `resale_charge_${status}`;
  }
}
