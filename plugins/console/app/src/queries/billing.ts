import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';

/** Query keys of billing: the Billing answer, credits, invoices, claims, referrals. */
export const billingKeys = {
  all: ['billing'] as const,
  summary: () => [...billingKeys.all, 'summary'] as const,
  credits: () => [...billingKeys.all, 'credits'] as const,
  invoices: () => [...billingKeys.all, 'invoices'] as const,
  claims: () => [...billingKeys.all, 'claims'] as const,
  referrals: () => [...billingKeys.all, 'referrals'] as const,
};

export type Billing = Schema<'Billing'>;
export type PlanId = Billing['plans'][number]['id'];
export type PaidPlan = Exclude<PlanId, 'none' | 'open_source' | 'enterprise'>;
export const PAID_PLANS: readonly PaidPlan[] = ['indie', 'startup', 'growth', 'managed', 'agency'];
export const isPaidPlan = (id: PlanId): id is PaidPlan => (PAID_PLANS as readonly string[]).includes(id);

export const billingQuery = () =>
  queryOptions({ queryKey: billingKeys.summary(), queryFn: () => data(api.GET('/v1/billing')) });
export const creditsQuery = () =>
  queryOptions({ queryKey: billingKeys.credits(), queryFn: () => data(api.GET('/v1/billing/credits')) });
export const invoicesQuery = () =>
  queryOptions({ queryKey: billingKeys.invoices(), queryFn: () => data(api.GET('/v1/billing/invoices')) });
export const referralsQuery = () =>
  queryOptions({ queryKey: billingKeys.referrals(), queryFn: () => data(api.GET('/v1/referrals')) });

/**
 * Where a hosted page of the payment provider opens: the browser leaves the console for it and
 * comes back to /billing (the service's `returnPath`) with `?checkout=success` and the like.
 */
export function goToProvider(url: string): void {
  window.location.assign(url);
}
