import type { LocalEmitter } from './emitter.js';
import { round2 } from './money.js';
import type { LocalRuntime } from './options.js';
import { localId } from './store.js';
import type {
  LocalAccount,
  LocalCustomer,
  LocalInvoice,
  LocalResale,
  LocalSubscription,
  LocalTransfer,
} from './types.js';

/** Money that moves: invoices (numbered), proration, resale charges and the transfers to payout accounts. */
export class LocalLedger {
  constructor(
    private readonly rt: LocalRuntime,
    private readonly events: LocalEmitter,
  ) {}

  async invoice(x: {
    customer: LocalCustomer;
    subscriptionId: string | null;
    purpose: 'subscription' | 'topup' | 'resale';
    amount: number;
    status: 'paid' | 'open';
    periodStart: Date | null;
    periodEnd: Date | null;
    line: string;
  }): Promise<LocalInvoice> {
    const count = await this.rt.store.count('invoice');
    const doc: LocalInvoice = {
      id: localId('invoice'),
      number: `LOCAL-${String(count + 1).padStart(6, '0')}`,
      customerId: x.customer.id,
      orgId: x.customer.orgId,
      subscriptionId: x.subscriptionId,
      purpose: x.purpose,
      status: x.status,
      amountDueUsd: round2(x.amount),
      amountPaidUsd: x.status === 'paid' ? round2(x.amount) : 0,
      currency: this.rt.options.currency ?? 'usd',
      periodStart: x.periodStart?.toISOString() ?? null,
      periodEnd: x.periodEnd?.toISOString() ?? null,
      line: x.line,
      createdAt: this.rt.now().toISOString(),
    };
    await this.rt.store.put('invoice', doc);
    return doc;
  }

  /** One period of a resale subscription: the invoice, and when paid the transfer to the payout account minus the platform fee. */
  async chargeResale(sub: LocalSubscription, customer: LocalCustomer, start: Date, end: Date): Promise<LocalInvoice> {
    const resale = sub.resale!;
    const failing = customer.card?.failing ?? false;
    const invoice = await this.invoice({
      customer,
      subscriptionId: sub.id,
      purpose: 'resale',
      amount: resale.amountUsd,
      status: failing ? 'open' : 'paid',
      periodStart: start,
      periodEnd: end,
      line: resale.description,
    });
    invoice.workspaceId = resale.workspaceId;
    invoice.transfer = null;
    if (!failing) await this.transfer(invoice, resale);
    return this.rt.store.put('invoice', invoice);
  }

  /** Pays a resale invoice out to the agency's payout account, minus the platform fee. */
  private async transfer(invoice: LocalInvoice, resale: LocalResale): Promise<void> {
    const fee = round2((invoice.amountPaidUsd * resale.feePercent) / 100);
    const amount = round2(invoice.amountPaidUsd - fee);
    const doc: LocalTransfer = {
      id: localId('transfer'),
      accountId: resale.accountId,
      invoiceId: invoice.id,
      workspaceId: resale.workspaceId,
      amountUsd: amount,
      feeUsd: fee,
      createdAt: this.rt.now().toISOString(),
    };
    await this.rt.store.put('transfer', doc);
    const account = await this.rt.store.get<LocalAccount>('account', resale.accountId);
    if (account) {
      account.balanceUsd = round2((account.balanceUsd ?? 0) + amount);
      await this.rt.store.put('account', account);
    }
    invoice.transfer = { accountId: resale.accountId, amountUsd: amount, feeUsd: fee, transferId: doc.id };
  }

  /** A proration: a credit on the customer's balance, or an invoice charged now. */
  async settleProration(sub: LocalSubscription, amount: number, line: string): Promise<void> {
    if (amount === 0) return;
    const customer = (await this.rt.store.get<LocalCustomer>('customer', sub.customerId))!;
    if (amount < 0) {
      customer.balanceUsd = round2(customer.balanceUsd - amount);
      await this.rt.store.put('customer', customer);
      return;
    }
    const failing = customer.card?.failing ?? false;
    const invoice = await this.invoice({
      customer,
      subscriptionId: sub.id,
      purpose: 'subscription',
      amount,
      status: failing ? 'open' : 'paid',
      periodStart: this.rt.now(),
      periodEnd: new Date(sub.currentPeriodEnd),
      line: `proration: ${line}`,
    });
    await this.events.invoice(invoice, this.rt.now());
  }
}
