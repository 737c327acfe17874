import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { KEYS } from '../../../core/kernel/keys.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { Answer } from '../../../test/helpers/api-types.js';
import { callOn, type AppCall, type Call } from '../../../test/helpers/call.js';
import { signUp, type SignedUp, type TestRole } from '../../../test/helpers/accounts.js';
import type { LocalPaymentProvider } from '../../../adapters/payment-local/index.js';

/** An answer: status, parsed body, headers, payload (test/helpers/call.ts); `B` is the body's type. */
export type Reply<B = Record<string, unknown>> = Call<B>;

/** A service with billing on payment-local, and small helpers for its flows. */
export interface BillingHarness {
  app: App;
  local: LocalPaymentProvider;
  call: AppCall;
  owner(opts?: { organizationType?: 'direct' | 'agency'; locale?: 'en' | 'it' }): Promise<SignedUp>;
  member(owner: SignedUp, role: TestRole): Promise<SignedUp>;
  /** Opens a hosted page of payment-local (path of its URL) and answers it. */
  page(url: string, form?: Record<string, string>): Promise<Reply>;
  /** POST /v1/billing/checkout, then "Pay" on the hosted page. */
  subscribe(who: SignedUp, plan: string, card?: string): Promise<Reply>;
  billing(who: SignedUp): Promise<Answer<'GET', '/v1/billing'>>;
  audit(orgId: string, action: string): Promise<Array<Record<string, unknown>>>;
  mails(orgId: string, template: string): Promise<Array<Record<string, unknown>>>;
}

/** A timestamp of an answer the test expects to be set (a trial's or a period's end); throws when it is null. */
export function dateOf(iso: string | null | undefined): Date {
  if (!iso) throw new Error('the timestamp is not set');
  return new Date(iso);
}

export async function startBilling(t: Test, overrides: Record<string, unknown> = {}): Promise<BillingHarness> {
  const app = await startTestApp(t, overrides);
  const local = app.container.resolve<LocalPaymentProvider>(KEYS.paymentProvider);
  const call = callOn(app);
  const page: BillingHarness['page'] = async (url, form) => {
    const u = new URL(url);
    const res = await app.server.inject({
      method: form ? 'POST' : 'GET',
      url: u.pathname + u.search,
      ...(form
        ? {
            payload: new URLSearchParams(form).toString(),
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
          }
        : {}),
    });
    return { status: res.statusCode, body: {}, headers: res.headers, payload: res.payload, raw: res.rawPayload };
  };
  const h: BillingHarness = {
    app,
    local,
    call,
    page,
    owner: (opts = {}) => signUp(app, opts),
    member: async (owner, role) => {
      const { addMember } = await import('../../../test/helpers/accounts.js');
      return addMember(app, owner, { role });
    },
    async subscribe(who, plan, card = '4242 4242 4242 4242') {
      const res = await call(who, 'POST', '/v1/billing/checkout', { plan });
      if (res.status !== 200) throw new Error(`checkout failed: ${res.status} ${res.payload}`);
      return page(res.body.url, { card });
    },
    async billing(who) {
      const res = await call(who, 'GET', '/v1/billing');
      if (res.status !== 200) throw new Error(`GET billing failed: ${res.status} ${res.payload}`);
      return res.body;
    },
    async audit(orgId, action) {
      return app.db('audit_entries').where({ org_id: orgId, action }).orderBy('created_at');
    },
    async mails(orgId, template) {
      return app.db('mail_messages').where({ org_id: orgId, template }).orderBy('created_at');
    },
  };
  return h;
}
