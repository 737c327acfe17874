import type { Knex } from 'knex';
import { num } from '../models.js';
import type { AccountStore } from './account-store.js';
import type { MailTemplate } from '../../../core/contracts/mail.js';
import { locale, type BillingDeps } from './deps.js';

/**
 * Spend cap mail: an alert when the period's spend reaches the alert ratio (80 %) of the cap, and
 * a notice when it reaches the cap (jobs are blocked from then on). Each goes out once per period
 * (the period start is stored when it is sent) and is enqueued in the transaction that recorded
 * the charge.
 */
export class SpendAlerts {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly spent: (trx: Knex, orgId: string, periodStart: Date) => Promise<number>,
  ) {}

  async afterCharge(trx: Knex, orgId: string): Promise<void> {
    const org = await this.store.org(trx, orgId);
    if (org.spend_cap_usd === null) return;
    const cap = num(org.spend_cap_usd);
    const account = await this.store.account(trx, orgId, { lock: true });
    const period = this.store.period(org, account);
    const spent = await this.spent(trx, orgId, period.start);
    const ratio = this.d.options.spendCap.alertRatio;
    const same = (d: Date | null) => d !== null && new Date(d).getTime() === period.start.getTime();
    const data = {
      organization: org.name,
      cap_usd: cap.toFixed(2),
      spent_usd: spent.toFixed(2),
      percent: String(Math.round(ratio * 100)),
      link: `${this.d.publicBaseUrl}${this.d.options.returnPath}`,
    };
    if (spent >= cap && !same(account.spend_block_period_start)) {
      await this.store.patchAccount(trx, orgId, {
        spend_block_period_start: period.start,
        spend_alert_period_start: period.start,
      });
      await this.send(trx, org.id, org.billing_email, org.locale, 'billing.spend_cap_reached', data);
      return;
    }
    if (spent >= cap * ratio && !same(account.spend_alert_period_start)) {
      await this.store.patchAccount(trx, orgId, { spend_alert_period_start: period.start });
      await this.send(trx, org.id, org.billing_email, org.locale, 'billing.spend_cap_alert', data);
    }
  }

  private async send(
    trx: Knex,
    orgId: string,
    billingEmail: string | null,
    orgLocale: string,
    template: string,
    data: Record<string, unknown>,
  ): Promise<void> {
    if (!this.d.mailer) {
      this.d.log.warn({ orgId, template }, 'no mailer: spend cap mail not sent');
      return;
    }
    const to = billingEmail ? [billingEmail] : await ownerEmails(trx, orgId);
    if (to.length === 0) return;
    await this.d.mailer.enqueue(trx, { orgId, template, locale: locale(orgLocale), to: to.join(', '), data });
  }
}

/** Addresses of the organization's active owners. */
export async function ownerEmails(trx: Knex, orgId: string): Promise<string[]> {
  const rows = (await trx('users')
    .select('email')
    .where({ org_id: orgId, role: 'owner' })
    .whereNull('removed_at')
    .whereNull('disabled_at')
    .orderBy('created_at')) as { email: string }[];
  return rows.map((r) => r.email);
}

export const SPEND_TEMPLATES: MailTemplate[] = [
  {
    name: 'billing.spend_cap_alert',
    subject: {
      en: '{{organization}}: {{percent}} % of your monthly spend cap is used',
      it: '{{organization}}: hai usato il {{percent}} % del limite di spesa mensile',
    },
    text: {
      en:
        'Hello,\n\n{{organization}} has spent {{spent_usd}} USD of its {{cap_usd}} USD monthly spend cap on ' +
        'fixes beyond its credits.\n\nWhen the cap is reached, new jobs stop until the next period. You can ' +
        'raise the cap, buy a top-up or turn overage off:\n{{link}}\n\nPatchwell',
      it:
        'Ciao,\n\n{{organization}} ha speso {{spent_usd}} USD dei {{cap_usd}} USD del limite di spesa ' +
        'mensile in fix oltre i crediti.\n\nAl raggiungimento del limite i nuovi job si fermano fino al ' +
        'prossimo periodo. Puoi alzare il limite, acquistare una ricarica o disattivare le ' +
        'eccedenze:\n{{link}}\n\nPatchwell',
    },
  },
  {
    name: 'billing.spend_cap_reached',
    subject: {
      en: '{{organization}}: monthly spend cap reached, jobs are paused',
      it: '{{organization}}: limite di spesa mensile raggiunto, job in pausa',
    },
    text: {
      en:
        'Hello,\n\n{{organization}} has reached its monthly spend cap of {{cap_usd}} USD ({{spent_usd}} USD ' +
        'spent). New jobs are paused until the next period.\n\nRaise the cap or buy a top-up to ' +
        'continue:\n{{link}}\n\nPatchwell',
      it:
        'Ciao,\n\n{{organization}} ha raggiunto il limite di spesa mensile di {{cap_usd}} USD ({{spent_usd}} ' +
        'USD spesi). I nuovi job sono in pausa fino al prossimo periodo.\n\nAlza il limite o acquista una ' +
        'ricarica per continuare:\n{{link}}\n\nPatchwell',
    },
  },
];
