import { randomBytes } from 'node:crypto';
import type { PaymentHost, PaymentWebhookEndpoint } from '../../core/contracts/index.js';
import type { LocalEventBody } from './events.js';
import type { LocalRuntime } from './options.js';
import { LOCAL_SIGNATURE_HEADER, signPayload } from './signature.js';
import { toResaleState, toState } from './states.js';
import type { LocalInvoice, LocalSubscription } from './types.js';

/**
 * The provider's webhooks: events signed like Stripe's and handed to the service's own webhook
 * route in process (nothing leaves the process; before `hostedPages` attached a host, nothing is sent).
 */
export class LocalEmitter {
  constructor(
    private readonly rt: LocalRuntime,
    private readonly secret: string,
    private readonly host: () => PaymentHost | null,
    private readonly log?: { warn?: (o: unknown, m: string) => void },
  ) {}

  async subscription(
    sub: LocalSubscription,
    type: 'subscription.updated' | 'subscription.deleted',
    at = this.rt.now(),
  ): Promise<void> {
    await this.send(type, sub.orgId, { subscription: toState(sub) }, at);
  }

  async invoice(inv: LocalInvoice, at: Date): Promise<void> {
    await this.send(
      inv.status === 'paid' ? 'invoice.paid' : 'invoice.payment_failed',
      inv.orgId,
      {
        invoice: {
          invoiceId: inv.id,
          number: inv.number,
          customerId: inv.customerId,
          subscriptionId: inv.subscriptionId,
          purpose: inv.purpose,
          status: inv.status,
          amountPaidUsd: inv.amountPaidUsd,
          amountDueUsd: inv.amountDueUsd,
          currency: inv.currency,
          periodStart: inv.periodStart,
          periodEnd: inv.periodEnd,
          hostedInvoiceUrl: this.rt.url(`/invoices/${inv.id}`),
          ...(inv.purpose === 'resale'
            ? {
                workspaceId: inv.workspaceId ?? null,
                transfer: inv.transfer
                  ? {
                      destinationAccountId: inv.transfer.accountId,
                      amountUsd: inv.transfer.amountUsd,
                      platformFeeUsd: inv.transfer.feeUsd,
                    }
                  : null,
              }
            : {}),
        },
      },
      at,
    );
  }

  async resale(sub: LocalSubscription, at = this.rt.now()): Promise<void> {
    await this.send('resale.updated', sub.orgId, { resale: toResaleState(sub) }, at);
  }

  /** Signs an event and hands it to the service's webhook, in process. */
  async send(
    type: string,
    orgId: string | null,
    data: Record<string, unknown>,
    occurredAt: Date,
    endpoint: PaymentWebhookEndpoint = 'account',
  ): Promise<number | null> {
    const body: LocalEventBody = {
      id: `evt_local_${randomBytes(12).toString('hex')}`,
      type,
      created: occurredAt.toISOString(),
      org_id: orgId,
      data,
    };
    const raw = Buffer.from(JSON.stringify(body));
    const host = this.host();
    if (!host) return null;
    const status = await host.deliverWebhook(
      { headers: { [LOCAL_SIGNATURE_HEADER]: signPayload(this.secret, raw) }, rawBody: raw },
      endpoint,
    );
    if (status >= 300) this.log?.warn?.({ type, status }, 'payment-local webhook refused');
    return status;
  }

  /** Signs a body as this provider does (tests, the contract kit). */
  sign(rawBody: Buffer | string, timestampSeconds?: number): Record<string, string> {
    return { [LOCAL_SIGNATURE_HEADER]: signPayload(this.secret, rawBody, timestampSeconds) };
  }
}
