import {
  PAID_PLAN_IDS,
  TOPUP_FIXES,
  TOPUP_PACK_IDS,
  type InvoiceInfo,
  type PaidPlanId,
  type PaymentEvent,
  type ResaleState,
  type SubscriptionState,
  type SubscriptionStatus,
  type TopupPackId,
} from '../../core/contracts/index.js';
import type { PriceKind } from './prices.js';

/** The fields of Stripe objects this adapter reads (snapshot events of API version 2025+). */
export interface StripeEventLike {
  id: string;
  type: string;
  created: number;
  account?: string;
  data: { object: Record<string, unknown> };
}

interface PriceLike {
  id: string;
  lookup_key?: string | null;
  unit_amount?: number | null;
}

interface ItemLike {
  id: string;
  price: PriceLike;
  quantity?: number;
  current_period_start?: number;
  current_period_end?: number;
}

export interface StripeSubscriptionLike {
  id: string;
  customer: string | { id: string };
  status: string;
  cancel_at_period_end: boolean;
  trial_end: number | null;
  metadata?: Record<string, string> | null;
  items: { data: ItemLike[] };
  /** Before API version 2025-03-31 the period was on the subscription. */
  current_period_start?: number;
  current_period_end?: number;
}

const date = (s: number | null | undefined): Date | null => (typeof s === 'number' ? new Date(s * 1000) : null);
const idOf = (v: unknown): string | null =>
  typeof v === 'string'
    ? v
    : v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string'
      ? (v as { id: string }).id
      : null;
const meta = (o: Record<string, unknown>): Record<string, string> =>
  o.metadata && typeof o.metadata === 'object' ? (o.metadata as Record<string, string>) : {};

/** Stripe's subscription statuses on the service's (incomplete_expired ends it, unpaid and paused block it). */
const STATUS: Record<string, SubscriptionStatus> = {
  trialing: 'trialing',
  active: 'active',
  past_due: 'past_due',
  unpaid: 'past_due',
  paused: 'past_due',
  canceled: 'canceled',
  incomplete: 'incomplete',
  incomplete_expired: 'canceled',
};

function planOf(
  sub: StripeSubscriptionLike,
  byId: Map<string, PriceKind>,
): { plan: PaidPlanId; item: ItemLike | undefined } {
  for (const item of sub.items.data) {
    const k = byId.get(item.price.id);
    if (k?.kind === 'plan') return { plan: k.plan, item };
    const fromKey = /(?:^|_)plan_([a-z]+)$/.exec(item.price.lookup_key ?? '')?.[1];
    if (fromKey && (PAID_PLAN_IDS as readonly string[]).includes(fromKey)) return { plan: fromKey as PaidPlanId, item };
  }
  const fromMeta = sub.metadata?.plan;
  if (fromMeta && (PAID_PLAN_IDS as readonly string[]).includes(fromMeta))
    return { plan: fromMeta as PaidPlanId, item: sub.items.data[0] };
  throw new Error(`subscription ${sub.id}: no item of a known plan`);
}

export function subscriptionState(sub: StripeSubscriptionLike, byId: Map<string, PriceKind>): SubscriptionState {
  const { plan, item } = planOf(sub, byId);
  const start = item?.current_period_start ?? sub.current_period_start ?? 0;
  const end = item?.current_period_end ?? sub.current_period_end ?? 0;
  return {
    subscriptionId: sub.id,
    customerId: idOf(sub.customer) ?? '',
    plan,
    status: STATUS[sub.status] ?? 'incomplete',
    currentPeriodStart: new Date(start * 1000),
    currentPeriodEnd: new Date(end * 1000),
    cancelAtPeriodEnd: sub.cancel_at_period_end,
    trialEndsAt: sub.status === 'trialing' ? date(sub.trial_end) : date(sub.trial_end),
  };
}

/** A client's resale subscription (metadata kind `resale`): its state for `resale.updated`. */
export function resaleState(sub: StripeSubscriptionLike): ResaleState {
  const item = sub.items.data[0];
  return {
    subscriptionId: sub.id,
    customerId: idOf(sub.customer) ?? '',
    workspaceId: sub.metadata?.workspace_id ?? '',
    status: STATUS[sub.status] ?? 'incomplete',
    amountUsd: Number(item?.price.unit_amount ?? 0) / 100,
    currentPeriodStart: new Date((item?.current_period_start ?? sub.current_period_start ?? 0) * 1000),
    currentPeriodEnd: new Date((item?.current_period_end ?? sub.current_period_end ?? 0) * 1000),
    cancelAtPeriodEnd: sub.cancel_at_period_end,
  };
}

/** An invoice's `parent`: what it bills for. */
interface InvoiceParent {
  subscription_details?: { subscription?: unknown; metadata?: Record<string, string> | null } | null;
}

function invoiceInfo(o: Record<string, unknown>): { info: InvoiceInfo; orgId: string | null } {
  const parent = o.parent as InvoiceParent | null | undefined;
  const subscriptionId = idOf(parent?.subscription_details?.subscription) ?? idOf(o.subscription);
  const m = meta(o);
  const subMeta = parent?.subscription_details?.metadata ?? {};
  const orgId = subMeta.org_id ?? m.org_id ?? null;
  const resale = subMeta.kind === 'resale' || m.kind === 'resale';
  const purpose: InvoiceInfo['purpose'] = resale
    ? 'resale'
    : subscriptionId
      ? 'subscription'
      : m.kind === 'topup'
        ? 'topup'
        : 'other';
  // A destination charge: the invoice names the connected account; the platform keeps application_fee_amount.
  const transferData = o.transfer_data as { destination?: unknown } | null | undefined;
  const destination = idOf(transferData?.destination);
  const paid = Number(o.amount_paid ?? 0) / 100;
  const fee = Number(o.application_fee_amount ?? 0) / 100;
  const extra = resale
    ? {
        workspaceId: subMeta.workspace_id ?? m.workspace_id ?? null,
        transfer:
          destination && o.status === 'paid'
            ? {
                destinationAccountId: destination,
                amountUsd: Math.round((paid - fee) * 100) / 100,
                platformFeeUsd: fee,
              }
            : null,
      }
    : {};
  return {
    orgId,
    info: {
      invoiceId: String(o.id),
      number: typeof o.number === 'string' ? o.number : null,
      customerId: idOf(o.customer) ?? '',
      subscriptionId,
      purpose,
      status: typeof o.status === 'string' ? o.status : 'open',
      amountPaidUsd: Number(o.amount_paid ?? 0) / 100,
      amountDueUsd: Number(o.amount_due ?? 0) / 100,
      currency: typeof o.currency === 'string' ? o.currency : 'usd',
      periodStart: date(o.period_start as number | undefined),
      periodEnd: date(o.period_end as number | undefined),
      hostedInvoiceUrl: typeof o.hosted_invoice_url === 'string' ? o.hosted_invoice_url : null,
      ...extra,
    },
  };
}

/** A verified Stripe event as a PaymentEvent; types the service does not use are `unhandled`. */
export function normalizeStripeEvent(event: StripeEventLike, byId: Map<string, PriceKind>): PaymentEvent {
  const o = event.data?.object ?? {};
  const base = { id: event.id, occurredAt: new Date(event.created * 1000) };
  const m = meta(o);
  switch (event.type) {
    case 'checkout.session.completed':
    case 'checkout.session.async_payment_succeeded': {
      const orgId = m.org_id ?? (typeof o.client_reference_id === 'string' ? o.client_reference_id : null);
      const customerId = idOf(o.customer) ?? '';
      if (
        o.mode === 'payment' &&
        m.kind === 'topup' &&
        o.payment_status === 'paid' &&
        (TOPUP_PACK_IDS as readonly string[]).includes(m.pack ?? '')
      ) {
        const pack = m.pack as TopupPackId;
        return {
          ...base,
          orgId,
          type: 'topup.paid',
          pack,
          fixes: Number(m.fixes ?? TOPUP_FIXES[pack]),
          amountUsd: Number(o.amount_total ?? 0) / 100,
          paymentId: idOf(o.payment_intent) ?? String(o.id),
          customerId,
        };
      }
      if (event.type === 'checkout.session.async_payment_succeeded')
        return { ...base, orgId, type: 'unhandled', providerType: event.type };
      const mode = m.kind === 'resale' ? 'resale' : o.mode === 'subscription' ? 'subscription' : 'topup';
      return {
        ...base,
        orgId,
        type: 'checkout.completed',
        checkoutId: String(o.id),
        mode,
        customerId,
        subscriptionId: idOf(o.subscription),
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.paused':
    case 'customer.subscription.resumed':
    case 'customer.subscription.deleted': {
      const sub = o as unknown as StripeSubscriptionLike;
      if (m.kind === 'resale' && m.workspace_id) {
        const resale = resaleState(sub);
        return {
          ...base,
          orgId: m.org_id ?? null,
          type: 'resale.updated',
          resale: event.type === 'customer.subscription.deleted' ? { ...resale, status: 'canceled' } : resale,
        };
      }
      let state: SubscriptionState;
      try {
        state = subscriptionState(sub, byId);
      } catch {
        return {
          ...base,
          orgId: m.org_id ?? null,
          type: 'unhandled',
          providerType: `${event.type} (not a plan subscription)`,
        };
      }
      return {
        ...base,
        orgId: m.org_id ?? null,
        type: event.type === 'customer.subscription.deleted' ? 'subscription.deleted' : 'subscription.updated',
        subscription: state,
      };
    }
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const { info, orgId } = invoiceInfo(o);
      return { ...base, orgId, type: event.type, invoice: info };
    }
    case 'account.updated':
      return {
        ...base,
        orgId: m.org_id ?? null,
        type: 'account.updated',
        accountId: String(o.id),
        chargesEnabled: Boolean(o.charges_enabled),
        payoutsEnabled: Boolean(o.payouts_enabled),
        detailsSubmitted: Boolean(o.details_submitted),
      };
    default:
      return { ...base, orgId: m.org_id ?? null, type: 'unhandled', providerType: event.type };
  }
}
