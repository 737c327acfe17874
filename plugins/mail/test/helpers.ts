import type { Knex } from 'knex';
import type { App } from '../../../core/kernel/app.js';
import type { OutboxChannelAdapter } from '../../../adapters/mail-outbox/index.js';
import type { Mailer } from '../services/mailer.js';
import type { MailTemplate } from '../services/templates.js';
import { waitFor } from '../../../test/helpers/wait.js';

export const NOTICE: MailTemplate = {
  name: 'test.notice',
  subject: { en: 'Your ticket {{ticket}} was updated', it: 'Il tuo ticket {{ticket}} è stato aggiornato' },
  text: {
    en: 'Hello {{name}},\n\nyour ticket {{ticket}} changed. See {{link}}.\n\nPatchwell',
    it: 'Ciao {{name}},\n\nil tuo ticket {{ticket}} è cambiato. Vedi {{link}}.\n\nPatchwell',
  },
};

export interface MailRow {
  id: string;
  org_id: string | null;
  template: string;
  locale: string;
  to_address: string;
  from_address: string;
  from_name: string | null;
  reply_to: string | null;
  subject: string;
  text: string;
  html: string;
  headers: Record<string, string>;
  message_id: string;
  ticket_ref: string | null;
  status: string;
  attempts: number;
  last_error: string | null;
  provider_message_id: string | null;
  sent_at: Date | null;
}

export function services(app: App): { mailer: Mailer; outbox: OutboxChannelAdapter; db: Knex } {
  const cradle = app.container.cradle;
  return { mailer: cradle.mailer, outbox: cradle.channelAdapter as OutboxChannelAdapter, db: cradle.db };
}

export async function mailRow(db: Knex, id: string): Promise<MailRow | undefined> {
  return (await db('mail_messages').where({ id }).first()) as MailRow | undefined;
}

/** Polls `check` every 25 ms until it returns a truthy value (test/helpers/wait.ts). */
export const until = <T>(check: () => Promise<T | undefined | null | false>, what: string, timeoutMs = 10_000) =>
  waitFor(check, what, timeoutMs, 25);

/** Waits until the mail's row has `status`, and answers the row. */
export const mailIn = (db: Knex, id: string, status: 'sent' | 'failed', what = `the mail ${status}`) =>
  until(async () => {
    const row = await mailRow(db, id);
    return row?.status === status ? row : null;
  }, what);

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
