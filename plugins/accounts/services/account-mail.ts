import type { Knex } from 'knex';
import type { MailerPort } from '../../../core/contracts/mail.js';

export type Locale = 'en' | 'it';
export const asLocale = (v: string | null | undefined): Locale => (v === 'it' ? 'it' : 'en');

/**
 * The emails of accounts: builds links on the public base URL and enqueues them through the
 * mailer in the caller's transaction (sent after commit, with retries).
 */
export class AccountMail {
  private readonly base: string;

  constructor(
    private readonly mailer: Pick<MailerPort, 'enqueue'>,
    publicBaseUrl: string,
  ) {
    this.base = publicBaseUrl.replace(/\/+$/, '');
  }

  link(path: string, params: Record<string, string | null | undefined>): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    const query = q.toString();
    return `${this.base}${path}${query ? `?${query}` : ''}`;
  }

  send(
    trx: Knex,
    orgId: string,
    template: string,
    to: string,
    locale: string,
    data: Record<string, unknown>,
  ): Promise<unknown> {
    return this.mailer.enqueue(trx, {
      orgId,
      template,
      locale: asLocale(locale),
      to,
      data: { ...data, base_url: this.base },
    });
  }
}
