import type { Knex } from 'knex';
import type { FixRelease } from '../models/index.js';
import type { FixesDeps, LoopTicket, ReleaseWorkspace } from './deps.js';

export const RELEASE_TEMPLATES = [
  {
    // To the customer of the ticket, about their own report (its subject, its status page).
    name: 'fixes.release_notice',
    subject: { en: 'Fixed: {{subject}}', it: 'Risolto: {{subject}}' },
    text: {
      en:
        'Hello,\n\nthe problem you reported ("{{subject}}") is fixed in {{product}} {{version}}, released ' +
        'today.\n\n{{summary}}\n\nYou can follow the request here: {{status_url}}\n\nThank you for reporting ' +
        'it.\n\nTo stop receiving emails about this request: {{unsubscribe_url}}\n',
      it:
        'Buongiorno,\n\nil problema che ci ha segnalato ("{{subject}}") è risolto in {{product}} ' +
        '{{version}}, rilasciata oggi.\n\n{{summary}}\n\nPuò seguire la richiesta qui: ' +
        '{{status_url}}\n\nGrazie per la segnalazione.\n\nPer non ricevere più email su questa richiesta: ' +
        '{{unsubscribe_url}}\n',
    },
  },
  {
    // To someone who follows a ticket they did not write: never another customer's words.
    name: 'fixes.release_notice_subscriber',
    subject: { en: 'Fixed in {{product}} {{version}}', it: 'Risolto in {{product}} {{version}}' },
    text: {
      en:
        'Hello,\n\na problem you asked us to keep you informed about is fixed in {{product}} {{version}}, ' +
        'released today.\n\n{{summary}}\n\nYou can follow it here: {{status_url}}\n\nTo stop receiving these ' +
        'emails: {{unsubscribe_url}}\n',
      it:
        'Buongiorno,\n\nun problema su cui ha chiesto di essere aggiornato è risolto in {{product}} ' +
        '{{version}}, rilasciata oggi.\n\n{{summary}}\n\nPuò seguirlo qui: {{status_url}}\n\nPer non ' +
        'ricevere più queste email: {{unsubscribe_url}}\n',
    },
  },
];

/** A ticket as the tickets service answers it (customer_email, public_summary and its approval are what a notice reads). */
type NoticeTicket = LoopTicket;

/** The public summary a person approved (text already public on the status page), or null. */
const approvedSummary = (t: NoticeTicket): string | null =>
  t.public_summary && t.public_summary_approved_at ? t.public_summary : null;

/** One line per ticket from its approved public summary (the text already public on its status page). */
export async function changelogOf(db: Knex, orgId: string, ticketIds: string[]): Promise<string | null> {
  if (ticketIds.length === 0) return null;
  const rows: Array<{
    id: string;
    public_summary: string | null;
    public_summary_approved_at: Date | null;
  }> = await db('tickets')
    .where('org_id', orgId)
    .whereIn('id', ticketIds)
    .select('id', 'public_summary', 'public_summary_approved_at');
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ticketIds
    .map((id) => {
      const r = byId.get(id);
      const line =
        r?.public_summary && r.public_summary_approved_at
          ? r.public_summary.replace(/\s+/g, ' ').trim()
          : 'A reported problem is fixed.';
      return `- ${line}`;
    })
    .join('\n');
}

/** What a release says to the people who reported or follow its tickets. */
export class ReleaseNotices {
  constructor(private readonly d: FixesDeps) {}

  /**
   * The release notices of one ticket and its public status resolved, in the release's last
   * transaction (so it happens once). Each notice speaks of the reader's own report: the customer
   * gets a `release_notice` Draft of this ticket; a subscriber who came from a duplicate gets one of
   * their duplicate (its subject, its status page, which turns resolved with the version); other
   * subscribers get a notice that quotes nobody. Every notice carries an unsubscribe link.
   */
  async notify(trx: Knex, rel: FixRelease, ws: ReleaseWorkspace, ticketId: string, now: Date): Promise<void> {
    const ticket = await this.d.tickets.mustGet(trx, rel.org_id, ticketId);
    const optedOut = (await trx('tickets')
      .where({ org_id: rel.org_id, id: ticket.id })
      .select('notices_unsubscribed_at')
      .first()) as { notices_unsubscribed_at: Date | null } | undefined;
    const subs: Array<{
      id: string;
      email: string;
      source: string;
      thread_ticket_id: string | null;
    }> = await trx('ticket_subscribers')
      .where({ org_id: rel.org_id, ticket_id: ticket.id })
      .whereNull('unsubscribed_at')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('id', 'email', 'source', 'thread_ticket_id');
    const summary = approvedSummary(ticket);
    let notified = 0;
    if (ticket.customer_email && !optedOut?.notices_unsubscribed_at) {
      notified += await this.noticeOf(trx, ticket, ws, rel, summary);
    }
    for (const sub of subs) {
      const own =
        sub.source === 'duplicate' && sub.thread_ticket_id
          ? await this.duplicateOf(trx, rel.org_id, sub.thread_ticket_id, sub.email)
          : null;
      if (own) {
        notified += await this.noticeOf(trx, own, ws, rel, approvedSummary(own) ?? summary);
        await this.d.tickets.update(trx, own, { resolved_version: rel.version, released_at: now });
        await this.d.subscribers.markNotified(trx, rel.org_id, [sub.id], now);
      } else {
        await this.d.subscribers.notify(trx, ticket, sub, {
          template: 'fixes.release_notice_subscriber',
          data: {
            product: ws.name,
            version: rel.version,
            summary: summary ?? '',
            status_url: this.d.tickets.statusUrl(ticket),
          },
        });
        notified++;
      }
    }
    if (ticket.state === 'releasing')
      await this.d.tickets.transition(trx, ticket, 'customer_notified', {
        resolved_version: rel.version,
        released_at: now,
      });
    await this.d.outbox.add(
      trx,
      'fixes.released',
      { release_id: rel.id, ticket_id: ticket.id, version: rel.version, notified },
      { orgId: rel.org_id },
    );
  }

  /** The customer's notice of their own ticket, as a `release_notice` Draft row; 1 when it went out. */
  private async noticeOf(
    trx: Knex,
    ticket: NoticeTicket,
    ws: ReleaseWorkspace,
    rel: FixRelease,
    summary: string | null,
  ): Promise<number> {
    const unsubscribe = this.d.subscribers.unsubscribeLink(ticket.id, ticket.customer_email!);
    const sent = await this.d.drafts.sendNotice(trx, ticket, {
      kind: 'release_notice',
      template: 'fixes.release_notice',
      data: {
        subject: ticket.subject,
        product: ws.name,
        version: rel.version,
        summary: summary ?? '',
        status_url: this.d.tickets.statusUrl(ticket),
        unsubscribe_url: unsubscribe.url,
      },
      headers: unsubscribe.headers,
    });
    return sent?.mailId ? 1 : 0;
  }

  /** The duplicate a subscriber came from, when it is still theirs (its customer is the subscriber). */
  private async duplicateOf(trx: Knex, orgId: string, ticketId: string, email: string): Promise<NoticeTicket | null> {
    const dup = await this.d.tickets.mustGet(trx, orgId, ticketId).catch(() => null);
    return dup && dup.customer_email?.toLowerCase() === email.toLowerCase() ? dup : null;
  }
}
