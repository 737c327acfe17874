import Joi from 'joi';
import {
  PAID_PLAN_IDS,
  PayloadError,
  SUBSCRIPTION_STATUSES,
  TOPUP_PACK_IDS,
  type PaymentEvent,
} from '../../core/contracts/index.js';

/** A webhook body of the simulated provider: its own event format, already close to PaymentEvent. */
export interface LocalEventBody {
  id: string;
  type: string;
  /** ISO time of the change in the simulated clock. */
  created: string;
  org_id: string | null;
  data: Record<string, unknown>;
}

const date = Joi.date().iso();
const subscription = Joi.object({
  subscriptionId: Joi.string().required(),
  customerId: Joi.string().required(),
  plan: Joi.string()
    .valid(...PAID_PLAN_IDS)
    .required(),
  status: Joi.string()
    .valid(...SUBSCRIPTION_STATUSES)
    .required(),
  currentPeriodStart: date.required(),
  currentPeriodEnd: date.required(),
  cancelAtPeriodEnd: Joi.boolean().required(),
  trialEndsAt: date.allow(null).required(),
});
const invoice = Joi.object({
  invoiceId: Joi.string().required(),
  number: Joi.string().allow(null).required(),
  customerId: Joi.string().required(),
  subscriptionId: Joi.string().allow(null).required(),
  purpose: Joi.string().valid('subscription', 'topup', 'resale', 'other').required(),
  status: Joi.string().required(),
  amountPaidUsd: Joi.number().required(),
  amountDueUsd: Joi.number().required(),
  currency: Joi.string().required(),
  periodStart: date.allow(null).required(),
  periodEnd: date.allow(null).required(),
  hostedInvoiceUrl: Joi.string().allow(null).required(),
  workspaceId: Joi.string().allow(null),
  transfer: Joi.object({
    destinationAccountId: Joi.string().required(),
    amountUsd: Joi.number().required(),
    platformFeeUsd: Joi.number().required(),
  }).allow(null),
});
const resale = Joi.object({
  subscriptionId: Joi.string().required(),
  customerId: Joi.string().required(),
  workspaceId: Joi.string().required(),
  status: Joi.string()
    .valid(...SUBSCRIPTION_STATUSES)
    .required(),
  amountUsd: Joi.number().min(0).required(),
  currentPeriodStart: date.required(),
  currentPeriodEnd: date.required(),
  cancelAtPeriodEnd: Joi.boolean().required(),
});

const DATA: Record<string, Joi.ObjectSchema<Record<string, unknown>>> = {
  'checkout.completed': Joi.object({
    checkoutId: Joi.string().required(),
    mode: Joi.string().valid('subscription', 'topup', 'resale').required(),
    customerId: Joi.string().required(),
    subscriptionId: Joi.string().allow(null).required(),
  }),
  'subscription.updated': Joi.object({ subscription: subscription.required() }),
  'subscription.deleted': Joi.object({ subscription: subscription.required() }),
  'invoice.paid': Joi.object({ invoice: invoice.required() }),
  'invoice.payment_failed': Joi.object({ invoice: invoice.required() }),
  'resale.updated': Joi.object({ resale: resale.required() }),
  'topup.paid': Joi.object({
    pack: Joi.string()
      .valid(...TOPUP_PACK_IDS)
      .required(),
    fixes: Joi.number().integer().min(1).required(),
    amountUsd: Joi.number().min(0).required(),
    paymentId: Joi.string().required(),
    customerId: Joi.string().required(),
  }),
  'account.updated': Joi.object({
    accountId: Joi.string().required(),
    chargesEnabled: Joi.boolean().required(),
    payoutsEnabled: Joi.boolean().required(),
    detailsSubmitted: Joi.boolean().required(),
  }),
};

const envelope = Joi.object<Omit<LocalEventBody, 'created'> & { created: Date }>({
  id: Joi.string().min(1).required(),
  type: Joi.string().min(1).required(),
  created: date.required(),
  org_id: Joi.string().allow(null).required(),
  data: Joi.object().unknown(true).required(),
});

/** The normalized event of a verified body; PayloadError when it does not have the expected shape. */
export function decodeEvent(body: LocalEventBody): PaymentEvent {
  const env = envelope.validate(body, { convert: true });
  if (env.error) throw new PayloadError(`payment-local event: ${env.error.message}`);
  const base = { id: body.id, occurredAt: env.value.created, orgId: body.org_id };
  const schema = DATA[body.type];
  if (!schema) return { ...base, type: 'unhandled', providerType: body.type };
  const data = schema.validate(body.data, { convert: true, stripUnknown: true });
  if (data.error) throw new PayloadError(`payment-local ${body.type}: ${data.error.message}`);
  return { ...base, type: body.type, ...data.value } as PaymentEvent;
}
