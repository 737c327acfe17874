import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { money, num, type ResaleRow } from '../models.js';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import type { MailTemplate } from '../../../core/contracts/mail.js';
import { locale, type BillingDeps } from './deps.js';
import { OneAtATime } from './one-at-a-time.js';
import { providerCall } from './provider-call.js';
import { iso } from '../../../core/http/times.js';

interface WorkspaceResale {
  id: string;
  name: string;
  client_name: string | null;
  locale: string | null;
  resale_price: string | number | null;
  collect_via_connect: boolean;
  resale_client_email: string | null;
}

/**
 * Agency resale collected through the agency's payout account. `PUT …/resale` stores the price;
 * `reconcile` then brings the provider in line: a first collection opens a hosted checkout the
 * client pays on (the link is mailed to the client and shown in the Billing answer), a new price
 * changes the running subscription from its next period, turning collection off stops it at the
 * end of the paid period. The provider's events then move the collection's status and fill its
 * ledger (ResaleEvents).
 */
export class Resales {
  private readonly queue = new OneAtATime();

  constructor(private readonly d: BillingDeps) {}

  async live(db: Knex, orgId: string, workspaceId: string): Promise<ResaleRow | null> {
    const row = (await db('billing_resales')
      .where({ org_id: orgId, workspace_id: workspaceId })
      .whereNot('status', 'canceled')
      .first()) as ResaleRow | undefined;
    return row ?? null;
  }

  /** One reconcile at a time per workspace in this process; the unique index guards across processes. */
  reconcile(orgId: string, workspaceId: string, actor: AuditedActor): Promise<void> {
    return this.queue.run(`${orgId}:${workspaceId}`, () => this.reconcileNow(orgId, workspaceId, actor));
  }

  private async reconcileNow(orgId: string, workspaceId: string, actor: AuditedActor): Promise<void> {
    const provider = this.d.provider;
    const ws = (await this.d.db('workspaces').where({ id: workspaceId, org_id: orgId }).first()) as
      WorkspaceResale | undefined;
    if (!ws) return;
    const price = ws.resale_price === null ? 0 : num(ws.resale_price);
    const want = ws.collect_via_connect && price > 0 && Boolean(ws.resale_client_email);
    const fee = this.d.options.resale.platformFeePercent;
    const row = await this.live(this.d.db, orgId, workspaceId);
    if (!provider?.startResaleCollection) return;

    if (want && !row) {
      const org = (await this.d
        .db('organizations')
        .where({ id: orgId })
        .select('name', 'payment_connect_account_id')
        .first()) as { name: string; payment_connect_account_id: string };
      const returnUrl = this.d.options.resale.clientReturnUrl ?? this.d.publicBaseUrl;
      const description = `${org.name} — ${ws.client_name ?? ws.name}`;
      // The same settings after the same history give the same key: a retried request reopens the same page.
      const earlier = Number(
        (
          (await this.d
            .db('billing_resales')
            .where({ org_id: orgId, workspace_id: workspaceId })
            .count({ n: '*' })
            .first()) as { n: number | string }
        ).n,
      );
      const collection = await providerCall(this.d, () =>
        provider.startResaleCollection!(
          {
            orgId,
            workspaceId,
            destinationAccountId: org.payment_connect_account_id,
            client: { email: ws.resale_client_email!, name: ws.client_name },
            amountUsd: price,
            platformFeePercent: fee,
            description,
            successUrl: returnUrl,
            cancelUrl: returnUrl,
          },
          `resale:${orgId}:${workspaceId}:start:${earlier}:${price}:${fee}:${ws.resale_client_email}`,
        ),
      );
      await this.d.db.transaction(async (trx) => {
        const id = newId('bres');
        const inserted = (await trx('billing_resales')
          .insert({
            id,
            org_id: orgId,
            workspace_id: workspaceId,
            provider: provider.identifier,
            destination_account_id: org.payment_connect_account_id,
            client_email: ws.resale_client_email,
            checkout_id: collection.checkoutId,
            checkout_url: collection.url,
            customer_id: collection.customerId,
            status: 'pending',
            amount_usd: price,
            platform_fee_percent: fee,
          })
          .onConflict(['provider', 'checkout_id'])
          .ignore()
          .returning('id')) as unknown[];
        if (inserted.length === 0) return; // the same checkout (an idempotent repeat) is already recorded
        await this.d.audit.record(trx, {
          orgId,
          actor,
          action: 'billing.resale_collection_started',
          target: { type: 'workspace', id: workspaceId },
          workspaceId,
          metadata: { amount_usd: price, platform_fee_percent: fee, client_email: ws.resale_client_email },
        });
        await this.mailClient(trx, orgId, org.name, ws, collection.url, price);
      });
      return;
    }
    if (!row) return;

    if (!want) {
      if (!row.subscription_id) {
        // The client never paid: the page is withdrawn.
        await this.d
          .db('billing_resales')
          .where({ id: row.id })
          .update({ status: 'canceled', checkout_url: null, updated_at: this.d.clock() });
        return;
      }
      if (row.cancel_at_period_end || !provider.stopResaleCollection) return;
      const seq = row.sync_seq + 1;
      await providerCall(this.d, () =>
        provider.stopResaleCollection!(row.subscription_id!, `resale:${orgId}:${workspaceId}:stop:${seq}`),
      );
      await this.d
        .db('billing_resales')
        .where({ id: row.id })
        .update({ cancel_at_period_end: true, sync_seq: seq, updated_at: this.d.clock() });
      return;
    }

    const same = num(row.amount_usd) === price && num(row.platform_fee_percent) === fee && !row.cancel_at_period_end;
    if (same) return;
    if (!row.subscription_id) {
      // Not paid yet: a new page at the new price (the old one may still be paid; its events find this row).
      await this.d
        .db('billing_resales')
        .where({ id: row.id })
        .update({ status: 'canceled', updated_at: this.d.clock() });
      return this.reconcileNow(orgId, workspaceId, actor);
    }
    if (!provider.updateResaleCollection) return;
    const seq = row.sync_seq + 1;
    const state = await providerCall(this.d, () =>
      provider.updateResaleCollection!(
        { subscriptionId: row.subscription_id!, amountUsd: price, platformFeePercent: fee },
        `resale:${orgId}:${workspaceId}:update:${seq}:${price}:${fee}`,
      ),
    );
    await this.d.db('billing_resales').where({ id: row.id }).update({
      amount_usd: price,
      platform_fee_percent: fee,
      cancel_at_period_end: state.cancelAtPeriodEnd,
      sync_seq: seq,
      updated_at: this.d.clock(),
    });
  }

  /** Per workspace: the collection and what it brought in (for the Billing answer). */
  async summary(trx: Knex, orgId: string): Promise<Map<string, Record<string, unknown>>> {
    const rows = (await trx('billing_resales').where({ org_id: orgId }).orderBy('created_at', 'desc')) as ResaleRow[];
    const totals: Array<{
      workspace_id: string;
      collected: string | number;
      transferred: string | number;
      fees: string | number;
      periods: string | number;
    }> = await trx('billing_resale_charges')
      .where({ org_id: orgId, status: 'paid' })
      .groupBy('workspace_id')
      .select('workspace_id')
      .sum({ collected: 'amount_usd', transferred: 'transferred_usd', fees: 'platform_fee_usd' })
      .count({ periods: '*' });
    const out = new Map<string, Record<string, unknown>>();
    for (const r of rows) {
      if (out.has(r.workspace_id)) continue; // newest first: the live one, else the last ended one
      const t = totals.find((x) => x.workspace_id === r.workspace_id);
      out.set(r.workspace_id, {
        status: r.status,
        checkout_url: r.status === 'pending' ? r.checkout_url : null,
        amount_usd: num(r.amount_usd),
        platform_fee_percent: num(r.platform_fee_percent),
        current_period_end: iso(r.current_period_end),
        cancel_at_period_end: r.cancel_at_period_end,
        periods_paid: Number(t?.periods ?? 0),
        collected_usd: money(num(t?.collected)),
        transferred_usd: money(num(t?.transferred)),
        platform_fees_usd: money(num(t?.fees)),
      });
    }
    return out;
  }

  private async mailClient(
    trx: Knex,
    orgId: string,
    agency: string,
    ws: WorkspaceResale,
    url: string,
    price: number,
  ): Promise<void> {
    const data = { agency, client: ws.client_name ?? ws.name, amount_usd: price.toFixed(2), link: url };
    if (!this.d.mailer) {
      this.d.log.warn(
        { orgId, workspaceId: ws.id },
        'no mailer: the resale payment link is only in the Billing answer',
      );
      return;
    }
    await this.d.mailer.enqueue(trx, {
      orgId,
      template: 'billing.resale_payment_link',
      locale: locale(ws.locale),
      to: ws.resale_client_email!,
      data,
    });
  }
}

export const RESALE_TEMPLATES: MailTemplate[] = [
  {
    name: 'billing.resale_payment_link',
    subject: {
      en: '{{agency}}: monthly payment for {{client}}',
      it: '{{agency}}: pagamento mensile per {{client}}',
    },
    text: {
      en:
        'Hello,\n\n{{agency}} bills {{client}} {{amount_usd}} USD a month for its support service. Enter a ' +
        'card on this page to start the monthly payments:\n{{link}}\n\nThe payments go to {{agency}}; you ' +
        'can ask them to stop at any time.\n',
      it:
        'Ciao,\n\n{{agency}} addebita a {{client}} {{amount_usd}} USD al mese per il servizio di assistenza. ' +
        'Inserisci una carta in questa pagina per avviare i pagamenti mensili:\n{{link}}\n\nI pagamenti ' +
        'vanno a {{agency}}; puoi chiedere di interromperli in qualsiasi momento.\n',
    },
  },
];
