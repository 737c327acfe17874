import { randomBytes } from 'node:crypto';
import { TOPUP_FIXES, type TopupPackId } from '../../core/contracts/index.js';
import type { LocalEmitter } from './emitter.js';
import type { LocalLedger } from './ledger.js';
import { addDays, addMonths } from './money.js';
import type { LocalRuntime } from './options.js';
import { LIVE, TEST_CARDS } from './states.js';
import { localId } from './store.js';
import type {
  LocalAccount,
  LocalAccountLink,
  LocalCheckout,
  LocalCustomer,
  LocalInvoice,
  LocalPortal,
  LocalSubscription,
  LocalTransfer,
} from './types.js';

/**
 * What a person does on the hosted pages (pay a checkout, use the portal, finish payout
 * onboarding) and what those pages read; each action stores its outcome and sends its webhooks.
 */
export class LocalPageActions {
  constructor(
    private readonly rt: LocalRuntime,
    private readonly ledger: LocalLedger,
    private readonly events: LocalEmitter,
    /** Fixes a top-up pack grants (the provider's rule). */
    private readonly fixesOf: (pack: TopupPackId) => number,
  ) {}

  /** Completes a checkout as the "Pay" button does. Answers the error shown on the page, or null. */
  async completeCheckout(
    checkoutId: string,
    cardNumber: string,
  ): Promise<{ error: 'gone' | 'declined' } | { redirect: string; subscriptionId: string | null; customerId: string }> {
    const checkout = await this.rt.store.get<LocalCheckout>('checkout', checkoutId);
    const now = this.rt.now();
    if (!checkout || checkout.status !== 'open' || new Date(checkout.expiresAt) <= now) return { error: 'gone' };
    const card = cardNumber.replace(/\D/g, '');
    const trial = checkout.mode === 'subscription' && checkout.trialDays > 0;
    if (card === TEST_CARDS.declined || card.length < 12 || (card === TEST_CARDS.failsLater && !trial))
      return { error: 'declined' };

    if (checkout.mode === 'resale') return this.completeResale(checkout, card, now);
    const customer = await this.customerFor(checkout, card);
    checkout.status = 'complete';
    checkout.customerId = customer.id;
    if (checkout.mode === 'topup') {
      const pack = checkout.pack!;
      const amount = this.rt.options.prices.topups[pack];
      const paymentId = `pi_local_${randomBytes(12).toString('hex')}`;
      await this.rt.store.put('checkout', checkout);
      const invoice = await this.ledger.invoice({
        customer,
        subscriptionId: null,
        purpose: 'topup',
        amount,
        status: 'paid',
        periodStart: null,
        periodEnd: null,
        line: `${TOPUP_FIXES[pack]} fixes`,
      });
      await this.events.send(
        'checkout.completed',
        checkout.orgId,
        { checkoutId: checkout.id, mode: 'topup', customerId: customer.id, subscriptionId: null },
        now,
      );
      await this.events.send(
        'topup.paid',
        checkout.orgId,
        { pack, fixes: this.fixesOf(pack), amountUsd: amount, paymentId, customerId: customer.id },
        now,
      );
      await this.events.invoice(invoice, now);
      return { redirect: checkout.successUrl, subscriptionId: null, customerId: customer.id };
    }

    const plan = checkout.plan!;
    const end = trial ? addDays(now, checkout.trialDays) : addMonths(now, 1);
    const sub: LocalSubscription = {
      id: localId('subscription'),
      customerId: customer.id,
      orgId: checkout.orgId,
      plan,
      status: trial ? 'trialing' : 'active',
      currentPeriodStart: now.toISOString(),
      currentPeriodEnd: end.toISOString(),
      trialEndsAt: trial ? end.toISOString() : null,
      cancelAtPeriodEnd: false,
      addons: {},
    };
    await this.rt.store.put('subscription', sub);
    checkout.subscriptionId = sub.id;
    await this.rt.store.put('checkout', checkout);
    const invoice = await this.ledger.invoice({
      customer,
      subscriptionId: sub.id,
      purpose: 'subscription',
      amount: trial ? 0 : this.rt.options.prices.plans[plan],
      status: 'paid',
      periodStart: now,
      periodEnd: end,
      line: trial ? `${plan} trial` : `${plan} plan`,
    });
    await this.events.send(
      'checkout.completed',
      checkout.orgId,
      { checkoutId: checkout.id, mode: 'subscription', customerId: customer.id, subscriptionId: sub.id },
      now,
    );
    await this.events.subscription(sub, 'subscription.updated', now);
    await this.events.invoice(invoice, now);
    return { redirect: checkout.successUrl, subscriptionId: sub.id, customerId: customer.id };
  }

  /** Portal actions: cancel at period end, keep the subscription, replace the card (retrying what is due). */
  async portalAction(portalId: string, action: string, cardNumber: string | undefined): Promise<boolean> {
    const portal = await this.portal(portalId);
    if (!portal) return false;
    const customer = (await this.rt.store.get<LocalCustomer>('customer', portal.customerId))!;
    const subs = await this.rt.store.list<LocalSubscription>('subscription', {
      where: { customerId: customer.id },
      in: ['status', LIVE],
    });
    if (action === 'cancel' || action === 'resume') {
      for (const sub of subs) {
        sub.cancelAtPeriodEnd = action === 'cancel';
        await this.rt.store.put('subscription', sub);
        await this.events.subscription(sub, 'subscription.updated');
      }
      return true;
    }
    if (action === 'update_card' && cardNumber) {
      const card = cardNumber.replace(/\D/g, '');
      if (card === TEST_CARDS.declined || card.length < 12) return false;
      customer.card = { last4: card.slice(-4), failing: card === TEST_CARDS.failsLater };
      await this.rt.store.put('customer', customer);
      await this.events.send('customer.updated', customer.orgId, { customerId: customer.id }, this.rt.now());
      if (customer.card.failing) return true;
      const open = await this.rt.store.list<LocalInvoice>('invoice', {
        where: { customerId: customer.id, status: 'open' },
      });
      for (const inv of open) {
        inv.status = 'paid';
        inv.amountPaidUsd = inv.amountDueUsd;
        await this.rt.store.put('invoice', inv);
        await this.events.invoice(inv, this.rt.now());
      }
      for (const sub of subs.filter((s) => s.status === 'past_due')) {
        sub.status = 'active';
        await this.rt.store.put('subscription', sub);
        await this.events.subscription(sub, 'subscription.updated');
      }
      return true;
    }
    return false;
  }

  /** Completes payout onboarding as the form does; answers where to send the user. */
  async completeOnboarding(linkId: string, businessName: string): Promise<string | null> {
    const link = await this.rt.store.get<LocalAccountLink>('account_link', linkId);
    if (!link) return null;
    if (link.used || new Date(link.expiresAt) <= new Date()) return link.refreshUrl;
    const account = (await this.rt.store.get<LocalAccount>('account', link.accountId))!;
    Object.assign(account, {
      businessName: businessName || account.email,
      detailsSubmitted: true,
      chargesEnabled: true,
      payoutsEnabled: true,
    });
    await this.rt.store.put('account', account);
    link.used = true;
    await this.rt.store.put('account_link', link);
    await this.events.send(
      'account.updated',
      account.orgId,
      { accountId: account.id, chargesEnabled: true, payoutsEnabled: true, detailsSubmitted: true },
      this.rt.now(),
      'connect',
    );
    return link.returnUrl;
  }

  async checkout(id: string): Promise<LocalCheckout | null> {
    return this.rt.store.get<LocalCheckout>('checkout', id);
  }

  async portal(id: string): Promise<LocalPortal | null> {
    const p = await this.rt.store.get<LocalPortal>('portal', id);
    return p && new Date(p.expiresAt) > new Date() ? p : null;
  }

  async portalView(portal: LocalPortal) {
    const customer = await this.rt.store.get<LocalCustomer>('customer', portal.customerId);
    const subscriptions = await this.rt.store.list<LocalSubscription>('subscription', {
      where: { customerId: portal.customerId },
    });
    const invoices = await this.rt.store.list<LocalInvoice>('invoice', { where: { customerId: portal.customerId } });
    return { customer, subscriptions, invoices: invoices.reverse() };
  }

  async accountLink(id: string): Promise<{ link: LocalAccountLink; account: LocalAccount } | null> {
    const link = await this.rt.store.get<LocalAccountLink>('account_link', id);
    if (!link) return null;
    return { link, account: (await this.rt.store.get<LocalAccount>('account', link.accountId))! };
  }

  async invoiceById(id: string): Promise<LocalInvoice | null> {
    return this.rt.store.get<LocalInvoice>('invoice', id);
  }

  /** The payout account and the transfers to it (what the agency has received). */
  async payoutAccount(id: string): Promise<{ account: LocalAccount; transfers: LocalTransfer[] } | null> {
    const account = await this.rt.store.get<LocalAccount>('account', id);
    if (!account) return null;
    return { account, transfers: await this.rt.store.list<LocalTransfer>('transfer', { where: { accountId: id } }) };
  }

  /** The client pays the first month: a subscription on the platform whose payments go to the payout account. */
  private async completeResale(checkout: LocalCheckout, card: string, now: Date) {
    const resale = checkout.resale!;
    const customer: LocalCustomer = {
      id: localId('customer'),
      orgId: checkout.orgId,
      email: checkout.email,
      name: checkout.name,
      card: { last4: card.slice(-4), failing: card === TEST_CARDS.failsLater },
      balanceUsd: 0,
      workspaceId: resale.workspaceId,
    };
    await this.rt.store.put('customer', customer);
    const sub: LocalSubscription = {
      id: localId('subscription'),
      customerId: customer.id,
      orgId: checkout.orgId,
      plan: 'agency',
      status: 'active',
      currentPeriodStart: now.toISOString(),
      currentPeriodEnd: addMonths(now, 1).toISOString(),
      trialEndsAt: null,
      cancelAtPeriodEnd: false,
      addons: {},
      resale: { ...resale },
    };
    await this.rt.store.put('subscription', sub);
    Object.assign(checkout, { status: 'complete', customerId: customer.id, subscriptionId: sub.id });
    await this.rt.store.put('checkout', checkout);
    const invoice = await this.ledger.chargeResale(sub, customer, now, new Date(sub.currentPeriodEnd));
    await this.events.send(
      'checkout.completed',
      checkout.orgId,
      { checkoutId: checkout.id, mode: 'resale', customerId: customer.id, subscriptionId: sub.id },
      now,
    );
    await this.events.resale(sub, now);
    await this.events.invoice(invoice, now);
    return { redirect: checkout.successUrl, subscriptionId: sub.id, customerId: customer.id };
  }

  private async customerFor(checkout: LocalCheckout, card: string): Promise<LocalCustomer> {
    // An agency's clients are customers too (resale); the organization's own customer is the one without a workspace.
    const existing = checkout.customerId
      ? await this.rt.store.get<LocalCustomer>('customer', checkout.customerId)
      : ((
          await this.rt.store.list<LocalCustomer>(
            'customer',
            { where: { orgId: checkout.orgId } },
            (c) => !c.workspaceId,
          )
        )[0] ?? null);
    const customer: LocalCustomer = existing ?? {
      id: localId('customer'),
      orgId: checkout.orgId,
      email: checkout.email,
      name: checkout.name,
      card: null,
      balanceUsd: 0,
    };
    customer.card = { last4: card.slice(-4), failing: card === TEST_CARDS.failsLater };
    return this.rt.store.put('customer', customer);
  }
}
