import type { Knex } from 'knex';
import {
  isAdapterError,
  type InvoiceInfo,
  type PaymentEvent,
  type PaymentWebhookEndpoint,
  type RawHeaders,
} from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { money } from '../models.js';
import type { AccountStore } from './account-store.js';
import { addDays } from './periods.js';
import type { ResaleEvents } from './resale-events.js';
import { BILLING, type BillingDeps } from './deps.js';

export interface WebhookReceipt {
  received: true;
  duplicate: boolean;
  event_id: string;
  type: string;
}

/** Invoice statuses in the order they can only move forward (out-of-order deliveries never move one back). */
const INVOICE_RANK: Record<string, number> = {
  draft: 1,
  open: 2,
  payment_failed: 3,
  uncollectible: 4,
  void: 5,
  paid: 6,
};

/**
 * Provider webhooks: verified and normalized by the adapter, deduplicated by provider event id
 * (`billing_events`, written in the same transaction as the event's effects, so a failure rolls
 * both back and the provider's retry is handled as new), then applied in ways that do not depend
 * on delivery order: subscription states through the transition table with provider times and
 * precedence, invoices by status rank, grants by reference, payout accounts by event time.
 */
export class PaymentEvents {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly resaleEvents: ResaleEvents,
  ) {}

  /** `provider` as in the path: the adapter identifier, with or without its `payment-` prefix. */
  matches(provider: string): boolean {
    const id = this.d.provider?.identifier;
    return Boolean(id) && (provider === id || `payment-${provider}` === id);
  }

  async receive(
    provider: string,
    endpoint: PaymentWebhookEndpoint,
    headers: RawHeaders,
    rawBody: Buffer,
  ): Promise<WebhookReceipt> {
    if (!this.d.provider || !this.matches(provider)) throw notFound('payment provider');
    let event: PaymentEvent;
    try {
      event = await this.d.provider.parseWebhook(headers, rawBody);
    } catch (err) {
      if (isAdapterError(err, 'invalid_signature'))
        throw httpError(400, 'invalid_signature', 'The webhook signature is missing or does not match');
      if (isAdapterError(err, 'invalid_payload')) throw httpError(400, 'invalid_payload', (err as Error).message);
      throw err;
    }
    const providerId = this.d.provider.identifier;
    return this.d.db.transaction(async (trx) => {
      const inserted = (await trx('billing_events')
        .insert({
          provider: providerId,
          event_id: event.id,
          endpoint,
          type: event.type,
          org_id: null,
          occurred_at: event.occurredAt,
          received_at: this.d.clock(),
        })
        .onConflict(['provider', 'event_id'])
        .ignore()
        .returning('event_id')) as unknown[];
      if (inserted.length === 0)
        return { received: true as const, duplicate: true, event_id: event.id, type: event.type };
      const { orgId, outcome } = await this.apply(trx, event, endpoint);
      await trx('billing_events')
        .where({ provider: providerId, event_id: event.id })
        .update({ org_id: orgId, outcome });
      this.d.log.info({ eventId: event.id, type: event.type, orgId, outcome }, 'payment event');
      return { received: true as const, duplicate: false, event_id: event.id, type: event.type };
    });
  }

  private async apply(
    trx: Knex,
    event: PaymentEvent,
    endpoint: PaymentWebhookEndpoint,
  ): Promise<{ orgId: string | null; outcome: string }> {
    if (endpoint === 'connect' && event.type !== 'account.updated' && event.type !== 'unhandled')
      return { orgId: event.orgId, outcome: 'ignored_on_connect_endpoint' };
    switch (event.type) {
      case 'unhandled':
        return { orgId: event.orgId, outcome: `ignored:${event.providerType}` };
      case 'checkout.completed':
        if (event.mode === 'resale') return this.resaleEvents.checkoutCompleted(trx, event);
        return this.checkoutCompleted(trx, event);
      case 'resale.updated':
        return this.resaleEvents.updated(trx, event);
      case 'subscription.updated':
      case 'subscription.deleted': {
        const state =
          event.type === 'subscription.deleted'
            ? { ...event.subscription, status: 'canceled' as const }
            : event.subscription;
        const orgId = await this.resolve(trx, event.orgId, {
          customerId: state.customerId,
          subscriptionId: state.subscriptionId,
        });
        if (!orgId) return { orgId: null, outcome: 'unknown_organization' };
        const verdict = await this.store.applySubscription(trx, orgId, state, event.occurredAt, BILLING);
        return { orgId, outcome: verdict.apply ? `applied:${state.status}` : `skipped:${verdict.reason}` };
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const resale = event.invoice.purpose === 'resale';
        // A resale invoice is the agency's client's: never look it up by the agency's own customer.
        const orgId = resale
          ? (await this.store.orgExists(trx, event.orgId))
            ? event.orgId
            : await this.resaleEvents.orgOf(trx, event.invoice.subscriptionId)
          : await this.resolve(trx, event.orgId, {
              customerId: event.invoice.customerId,
              subscriptionId: event.invoice.subscriptionId,
            });
        if (!orgId) return { orgId: null, outcome: 'unknown_organization' };
        const status =
          event.type === 'invoice.paid' ? 'paid' : event.invoice.status === 'paid' ? 'paid' : 'payment_failed';
        const outcome = await this.upsertInvoice(trx, orgId, event.invoice, status, event.occurredAt);
        if (!resale || outcome === 'skipped:stale_invoice') return { orgId, outcome };
        return {
          orgId,
          outcome: `${outcome};${await this.resaleEvents.recordCharge(trx, orgId, event.invoice, status, event.occurredAt)}`,
        };
      }
      case 'topup.paid': {
        const orgId = await this.resolve(trx, event.orgId, { customerId: event.customerId });
        if (!orgId) return { orgId: null, outcome: 'unknown_organization' };
        const { created } = await this.d.ledger.grant(trx, {
          orgId,
          source: 'topup',
          fixes: event.fixes,
          reference: `payment:${event.paymentId}`,
          expiresAt: addDays(event.occurredAt, this.d.options.creditExpiryDays.topup),
          note: `${event.pack} (${money(event.amountUsd).toFixed(2)} USD)`,
        });
        if (created) {
          await this.d.audit.record(trx, {
            orgId,
            actor: BILLING,
            action: 'billing.topup_paid',
            target: { type: 'payment', id: event.paymentId },
            metadata: { pack: event.pack, fixes: event.fixes, amount_usd: event.amountUsd },
          });
          await this.d.outbox.add(
            trx,
            'billing.credits_granted',
            { org_id: orgId, source: 'topup', fixes: event.fixes },
            { orgId },
          );
        }
        return { orgId, outcome: created ? 'granted' : 'already_granted' };
      }
      case 'account.updated':
        return this.accountUpdated(trx, event);
    }
  }

  private async checkoutCompleted(trx: Knex, event: Extract<PaymentEvent, { type: 'checkout.completed' }>) {
    const checkout = (await trx('billing_checkouts')
      .where({ provider: this.d.provider!.identifier, provider_checkout_id: event.checkoutId })
      .first()) as { id: string; org_id: string; status: string } | undefined;
    const orgId = checkout?.org_id ?? (await this.resolve(trx, event.orgId, { customerId: event.customerId }));
    if (!orgId) return { orgId: null, outcome: 'unknown_organization' };
    const account = await this.store.account(trx, orgId, { lock: true });
    const patch: Record<string, unknown> = {};
    if (!account.customer_id)
      Object.assign(patch, { customer_id: event.customerId, provider: this.d.provider!.identifier });
    if (event.mode === 'subscription') patch.has_payment_method = true;
    if (Object.keys(patch).length) await this.store.patchAccount(trx, orgId, patch);
    if (checkout && checkout.status !== 'completed') {
      await trx('billing_checkouts')
        .where({ id: checkout.id })
        .update({ status: 'completed', completed_at: event.occurredAt, updated_at: this.d.clock() });
    }
    return { orgId, outcome: 'checkout_completed' };
  }

  private async accountUpdated(trx: Knex, event: Extract<PaymentEvent, { type: 'account.updated' }>) {
    const byAccount = (await trx('organizations')
      .select('id')
      .where({ payment_connect_account_id: event.accountId })
      .first()) as { id: string } | undefined;
    const orgId = byAccount?.id ?? ((await this.store.orgExists(trx, event.orgId)) ? event.orgId : null);
    if (!orgId) return { orgId: null, outcome: 'unknown_organization' };
    const org = await this.store.org(trx, orgId, { lock: true });
    const account = await this.store.account(trx, orgId, { lock: true });
    if (account.connect_event_at && new Date(account.connect_event_at).getTime() > event.occurredAt.getTime())
      return { orgId, outcome: 'skipped:stale' };
    await this.store.patchOrg(trx, orgId, {
      connect_charges_enabled: event.chargesEnabled,
      payment_connect_account_id: org.payment_connect_account_id ?? event.accountId,
    });
    await this.store.patchAccount(trx, orgId, {
      connect_event_at: event.occurredAt,
      connect_payouts_enabled: event.payoutsEnabled,
      connect_details_submitted: event.detailsSubmitted,
    });
    if (org.connect_charges_enabled !== event.chargesEnabled) {
      await this.d.audit.record(trx, {
        orgId,
        actor: BILLING,
        action: 'billing.connect_account_updated',
        target: { type: 'payout_account', id: event.accountId },
        changes: { connect_charges_enabled: { before: org.connect_charges_enabled, after: event.chargesEnabled } },
      });
    }
    return { orgId, outcome: 'applied' };
  }

  private async upsertInvoice(
    trx: Knex,
    orgId: string,
    inv: InvoiceInfo,
    status: string,
    occurredAt: Date,
  ): Promise<string> {
    const provider = this.d.provider!.identifier;
    const rank = INVOICE_RANK[status] ?? 0;
    const existing = (await trx('billing_invoices')
      .where({ provider, provider_invoice_id: inv.invoiceId })
      .forUpdate()
      .first()) as { id: string; status_rank: number } | undefined;
    const fields = {
      number: inv.number,
      status,
      status_rank: rank,
      purpose: inv.purpose,
      amount_paid_usd: inv.amountPaidUsd,
      amount_due_usd: inv.amountDueUsd,
      currency: inv.currency,
      period_start: inv.periodStart,
      period_end: inv.periodEnd,
      paid_at: status === 'paid' ? occurredAt : null,
      hosted_invoice_url: inv.hostedInvoiceUrl,
      updated_at: this.d.clock(),
    };
    if (!existing) {
      await trx('billing_invoices').insert({
        id: newId('binv'),
        org_id: orgId,
        provider,
        provider_invoice_id: inv.invoiceId,
        created_at: occurredAt,
        ...fields,
      });
      return `invoice_${status}`;
    }
    if (existing.status_rank > rank) return 'skipped:stale_invoice';
    await trx('billing_invoices').where({ id: existing.id }).update(fields);
    return `invoice_${status}`;
  }

  /** The organization an event concerns: its own claim if the organization exists, else by customer or subscription. */
  private async resolve(
    trx: Knex,
    orgId: string | null,
    refs: { customerId?: string | null; subscriptionId?: string | null },
  ): Promise<string | null> {
    if (await this.store.orgExists(trx, orgId)) return orgId;
    if (refs.subscriptionId) {
      const bySub = await this.store.orgBySubscription(trx, refs.subscriptionId);
      if (bySub) return bySub;
    }
    if (refs.customerId) return this.store.orgByCustomer(trx, refs.customerId);
    return null;
  }
}
