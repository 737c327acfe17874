import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { PAID_PLAN_IDS, TOPUP_PACK_IDS, type PaidPlanId, type TopupPackId } from '../../../core/contracts/index.js';
import { requirePrincipal, type Role } from '../../../core/http/auth.js';
import { Billing, Credits, HostedUrl, InvoiceList } from '../schemas.js';
import type { BillingServices } from '../services/index.js';
import { idempotencyKey } from './request.js';
import { iso } from '../../../core/http/times.js';

const TAG = 'billing';
const MANAGERS: Role[] = ['owner', 'admin'];
const READERS: Role[] = ['owner', 'admin', 'reviewer'];

const enabled = Joi.object({ enabled: Joi.boolean().required() });
const idempotencyHeader = Joi.object({
  'idempotency-key': Joi.string()
    .max(200)
    .description('Repeating a request with the same key opens the same hosted page'),
}).unknown(true);

/** The 15 operations of the billing section. */
export function billingRoutes(s: BillingServices): ServerRoute[] {
  const answer = async (request: Request) => {
    await s.prices.list(); // outside the transaction: the provider may be a network call
    return s.db.transaction((trx) => s.view.build(trx, requirePrincipal(request).orgId));
  };
  const route = (
    method: ServerRoute['method'],
    path: string,
    id: string,
    description: string,
    roles: Role[],
    handler: (request: Request) => Promise<unknown>,
    extra: {
      payload?: Joi.ObjectSchema;
      params?: Joi.ObjectSchema;
      response?: Joi.Schema;
      notes?: string;
      headers?: Joi.ObjectSchema;
    } = {},
  ): ServerRoute => ({
    method,
    path,
    options: {
      id,
      tags: [TAG],
      description,
      ...(extra.notes ? { notes: extra.notes } : {}),
      validate: {
        ...(extra.payload ? { payload: extra.payload } : {}),
        ...(extra.params ? { params: extra.params } : {}),
        ...(extra.headers ? { headers: extra.headers } : {}),
      },
      response: { status: { 200: extra.response ?? Billing } },
      plugins: { patchwell: { roles: roles } },
      handler: (request) => handler(request),
    },
  });
  const wsParams = Joi.object({ id: Joi.string().max(100).required() });

  return [
    route(
      'GET',
      '/v1/billing',
      'getBilling',
      'Plan, subscription, credits, spend, add-ons, offers and usage of the period',
      READERS,
      answer,
      {
        notes: 'Agency organizations also get `agency`: the payout account and the billing of each client workspace.',
      },
    ),
    route(
      'POST',
      '/v1/billing/checkout',
      'createBillingCheckout',
      'Hosted checkout of a subscription: a 14-day trial with a card on file for the first subscription only',
      MANAGERS,
      async (request) => {
        const { plan } = request.payload as { plan: PaidPlanId };
        return { url: await s.actions.checkout(request.actor(), plan, idempotencyKey(request)) };
      },
      {
        payload: Joi.object({
          plan: Joi.string()
            .valid(...PAID_PLAN_IDS)
            .required(),
        }),
        response: HostedUrl,
        headers: idempotencyHeader,
        notes: 'Answers 409 subscription_exists when a subscription runs (switch with POST /v1/billing/plan).',
      },
    ),
    route(
      'POST',
      '/v1/billing/plan',
      'switchBillingPlan',
      'Switches the plan of the current subscription, prorated',
      MANAGERS,
      async (request) => {
        await s.actions.changePlan(
          request.actor(),
          (request.payload as { plan: PaidPlanId }).plan,
          idempotencyKey(request),
        );
        return answer(request);
      },
      {
        payload: Joi.object({
          plan: Joi.string()
            .valid(...PAID_PLAN_IDS)
            .required(),
        }),
        headers: idempotencyHeader,
        notes: 'Answers 409 no_subscription without a running subscription.',
      },
    ),
    route(
      'POST',
      '/v1/billing/cancel',
      'cancelBillingSubscription',
      'Cancels the subscription at the end of the paid period',
      MANAGERS,
      async (request) => {
        await s.actions.cancel(request.actor(), idempotencyKey(request));
        return answer(request);
      },
    ),
    route(
      'POST',
      '/v1/billing/portal',
      'openBillingPortal',
      'Hosted customer portal: payment methods, invoices, details, cancellation',
      MANAGERS,
      async (request) => ({ url: await s.actions.portal(request.actor(), idempotencyKey(request)) }),
      { response: HostedUrl },
    ),
    route(
      'POST',
      '/v1/billing/topups',
      'createBillingTopup',
      'Hosted checkout of a top-up pack of fixes (one-time payment)',
      MANAGERS,
      async (request) => {
        const { pack } = request.payload as { pack: TopupPackId };
        return { url: await s.actions.topup(request.actor(), pack, idempotencyKey(request)) };
      },
      {
        payload: Joi.object({
          pack: Joi.string()
            .valid(...TOPUP_PACK_IDS)
            .required(),
        }),
        response: HostedUrl,
        headers: idempotencyHeader,
      },
    ),
    route(
      'POST',
      '/v1/billing/open-source',
      'enableOpenSourcePlan',
      'Puts an organization without a plan on the free open-source plan (public repositories only); audited',
      MANAGERS,
      async (request) => {
        await s.actions.openSource(request.actor());
        return answer(request);
      },
    ),
    route(
      'PUT',
      '/v1/billing/overage',
      'setBillingOverage',
      'Turns paid fixes beyond every credit on or off',
      MANAGERS,
      async (request) => {
        await s.actions.setOverage(request.actor(), (request.payload as { enabled: boolean }).enabled);
        return answer(request);
      },
      { payload: enabled },
    ),
    route(
      'PUT',
      '/v1/billing/spend-cap',
      'setBillingSpendCap',
      'Sets (or with null removes) the monthly spend cap: alert at 80 %, jobs blocked at 100 %',
      MANAGERS,
      async (request) => {
        await s.actions.setSpendCap(request.actor(), (request.payload as { cap_usd: number | null }).cap_usd);
        return answer(request);
      },
      { payload: Joi.object({ cap_usd: Joi.number().min(0).max(1_000_000).precision(2).allow(null).required() }) },
    ),
    route(
      'PUT',
      '/v1/billing/addons/badge-removal',
      'setBadgeRemovalAddon',
      'Adds or removes the badge removal add-on (Managed plan)',
      MANAGERS,
      async (request) => {
        await s.addons.setBadgeRemoval(
          request.actor(),
          (request.payload as { enabled: boolean }).enabled,
          idempotencyKey(request),
        );
        return answer(request);
      },
      { payload: enabled },
    ),
    route(
      'PUT',
      '/v1/billing/workspaces/{id}/managed',
      'setWorkspaceManagedAddon',
      'Agency: the managed add-on of a client workspace',
      MANAGERS,
      async (request) => {
        const { id } = request.params as { id: string };
        await s.addons.setManaged(
          request.actor(),
          id,
          (request.payload as { enabled: boolean }).enabled,
          idempotencyKey(request),
        );
        return answer(request);
      },
      { payload: enabled, params: wsParams },
    ),
    route(
      'PUT',
      '/v1/billing/workspaces/{id}/resale',
      'setWorkspaceResale',
      'Agency: the resale price of a client workspace and whether it is collected through the payout account',
      MANAGERS,
      async (request) => {
        const { id } = request.params as { id: string };
        await s.addons.setResale(
          request.actor(),
          id,
          request.payload as { resale_price_usd: number; collect_via_connect: boolean; client_email?: string | null },
        );
        return answer(request);
      },
      {
        params: wsParams,
        payload: Joi.object({
          resale_price_usd: Joi.number().min(0).max(1_000_000).precision(2).required(),
          collect_via_connect: Joi.boolean().required(),
          client_email: Joi.string().trim().lowercase().email({ tlds: false }).max(254).allow(null),
        }),
        notes:
          'Collecting through the payout account needs its onboarding finished (409 connect_not_ready) and a client_email.',
      },
    ),
    route(
      'POST',
      '/v1/billing/connect/onboarding',
      'createPayoutOnboarding',
      'Agency: creates the payout account if needed and answers its onboarding link',
      ['owner'],
      async (request) => {
        const { country } = request.payload as { country: string };
        return { url: await s.addons.connectOnboarding(request.actor(), country, idempotencyKey(request)) };
      },
      {
        payload: Joi.object({
          country: Joi.string()
            .trim()
            .uppercase()
            .pattern(/^[A-Z]{2}$/)
            .required()
            .description('ISO 3166-1 alpha-2'),
        }),
        response: HostedUrl,
      },
    ),
    route(
      'GET',
      '/v1/billing/credits',
      'getBillingCredits',
      'Credit balances by source and the ledger (newest first, last 500 entries)',
      READERS,
      async (request) => {
        const orgId = requirePrincipal(request).orgId;
        return s.db.transaction(async (trx) => {
          await s.store.ensurePlanCredits(trx, orgId);
          const balances = await trx('credit_balances')
            .where({ org_id: orgId })
            .orderBy([
              { column: 'created_at', order: 'desc' },
              { column: 'id', order: 'desc' },
            ])
            .limit(500);
          const ledger = await trx('credit_ledger')
            .where({ org_id: orgId })
            .orderBy([
              { column: 'created_at', order: 'desc' },
              { column: 'id', order: 'desc' },
            ])
            .limit(500);
          return { balances: balances.map((b: Row) => balanceJson(b, s.clock())), ledger: ledger.map(ledgerJson) };
        });
      },
      { response: Credits },
    ),
    route(
      'GET',
      '/v1/billing/invoices',
      'listBillingInvoices',
      'Invoices, newest first (last 500)',
      MANAGERS,
      async (request) => {
        const orgId = requirePrincipal(request).orgId;
        const rows = await s
          .db('billing_invoices')
          .where({ org_id: orgId })
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .limit(500);
        return { items: rows.map(invoiceJson) };
      },
      { response: InvoiceList },
    ),
  ];
}

type Time = Date | string | null;
/** A balance, ledger or invoice row as knex answers it: the times this file writes, the rest passed through. */
interface Row extends Record<string, unknown> {
  created_at: Time;
  expires_at?: Time;
  granted_at?: Time;
  paid_at?: Time;
  period_start?: Time;
  period_end?: Time;
}

function balanceJson(r: Row, now: Date) {
  return {
    id: r.id,
    org_id: r.org_id,
    workspace_id: r.workspace_id ?? null,
    source: r.source,
    granted_fixes: Number(r.granted_fixes),
    fixes_remaining: r.expires_at && new Date(r.expires_at).getTime() <= now.getTime() ? 0 : Number(r.fixes_remaining),
    granted_at: iso(r.granted_at),
    expires_at: iso(r.expires_at),
    reference: r.reference,
    created_at: iso(r.created_at),
  };
}

function ledgerJson(r: Row) {
  return {
    id: r.id,
    org_id: r.org_id,
    balance_id: r.balance_id,
    source: r.source,
    kind: r.kind,
    fixes: Number(r.fixes),
    job_id: r.job_id ?? null,
    note: r.note ?? null,
    created_at: iso(r.created_at),
  };
}

function invoiceJson(r: Row) {
  return {
    id: r.id,
    number: r.number ?? null,
    status: r.status,
    purpose: r.purpose,
    amount_paid_usd: Number(r.amount_paid_usd),
    amount_due_usd: Number(r.amount_due_usd),
    currency: r.currency,
    period_start: iso(r.period_start),
    period_end: iso(r.period_end),
    paid_at: iso(r.paid_at),
    hosted_invoice_url: r.hosted_invoice_url ?? null,
    created_at: iso(r.created_at),
  };
}
