import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { paginate } from '../../../core/http/pagination.js';
import type { MailerPort } from '../../../core/contracts/mail.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import { iso } from '../../../core/http/times.js';

/** Billing's `creditLedger`, as far as approvals use it (absent when billing is off). */
export type SponsoredCreditsPort = Pick<Cradle['creditLedger'], 'grant'>;

export const SPONSORSHIP_DECISION_TEMPLATES = [
  {
    name: 'analytics.oss_sponsorship_approved',
    audience: 'team' as const,
    subject: {
      en: 'Your sponsorship request for {{repository}} is approved',
      it: 'La richiesta di sponsorizzazione per {{repository}} è approvata',
    },
    text: {
      en:
        'Hello {{name}},\n\nyour request for sponsored fixes for {{repository}} is ' +
        'approved.\n\n{{credits}}\n\n{{note}}\n\nThank you for your open-source work.\n',
      it:
        'Buongiorno {{name}},\n\nla richiesta di interventi sponsorizzati per {{repository}} è ' +
        'approvata.\n\n{{credits}}\n\n{{note}}\n\nGrazie per il suo lavoro open source.\n',
    },
  },
  {
    name: 'analytics.oss_sponsorship_declined',
    audience: 'team' as const,
    subject: {
      en: 'Your sponsorship request for {{repository}}',
      it: 'La richiesta di sponsorizzazione per {{repository}}',
    },
    text: {
      en: 'Hello {{name}},\n\nwe are sorry: we cannot sponsor {{repository}} at this time.\n\n{{note}}\n\nYou are welcome to ask again later.\n',
      it:
        'Buongiorno {{name}},\n\nci dispiace: al momento non possiamo sponsorizzare ' +
        '{{repository}}.\n\n{{note}}\n\nPuò fare una nuova richiesta più avanti.\n',
    },
  },
];

interface RequestRow {
  id: string;
  repository_url: string;
  repository_key: string;
  name: string;
  email: string;
  project_description: string | null;
  monthly_issues: number | null;
  locale: string;
  status: 'received' | 'approved' | 'declined';
  created_at: Date;
  updated_at: Date;
  decided_at: Date | null;
  decided_by_email: string | null;
  decision_note: string | null;
  organization_id: string | null;
  fixes_granted: number | null;
  credits_expire_at: Date | null;
}

export interface DecisionInput {
  decision: 'approve' | 'decline';
  organization_id?: string | null;
  fixes?: number;
  expires_in_days?: number;
  note?: string | null;
}

const DAY = 86_400_000;

/**
 * Staff review of open-source sponsorship requests: list them, approve (granting `sponsored`
 * fix credits to a named organization through billing's credit ledger when billing is on) or
 * decline; audited, announced on the bus and mailed to the requester in their language.
 */
export class SponsorshipReview {
  constructor(
    private readonly d: {
      db: () => Knex;
      audit: () => AuditWriter;
      outbox: () => Outbox;
      mailer: () => MailerPort;
      credits: () => SponsoredCreditsPort | null;
      defaultFixes: number;
      defaultExpiryDays: number;
    },
  ) {}

  out(r: RequestRow): Record<string, unknown> {
    return {
      id: r.id,
      repository_url: r.repository_url,
      repository: r.repository_key,
      name: r.name,
      email: r.email,
      project_description: r.project_description ?? null,
      monthly_issues: r.monthly_issues ?? null,
      locale: r.locale === 'it' ? 'it' : 'en',
      status: r.status,
      created_at: iso(r.created_at),
      decided_at: iso(r.decided_at),
      decided_by: r.decided_by_email ?? null,
      note: r.decision_note ?? null,
      organization_id: r.organization_id ?? null,
      fixes_granted: r.fixes_granted ?? null,
      credits_expire_at: iso(r.credits_expire_at),
    };
  }

  async list(q: {
    status?: string;
    cursor?: string;
    limit?: number;
  }): Promise<{ items: Record<string, unknown>[]; next_cursor: string | null }> {
    const b = this.d.db()('oss_sponsorship_requests');
    if (q.status) b.where({ status: q.status });
    const page = await paginate<RequestRow & Record<string, unknown>>(
      b,
      [
        { column: 'created_at', direction: 'desc', type: 'date' },
        { column: 'id', direction: 'desc', type: 'string' },
      ],
      q,
    );
    return { items: page.items.map((r) => this.out(r)), next_cursor: page.next_cursor };
  }

  async decide(by: SignedInActor, id: string, input: DecisionInput): Promise<Record<string, unknown>> {
    const db = this.d.db();
    return db.transaction(async (trx) => {
      const before = (await trx('oss_sponsorship_requests').where({ id }).forUpdate().first()) as
        RequestRow | undefined;
      if (!before) throw notFound('sponsorship request');
      if (before.status !== 'received')
        throw conflict('already_decided', `This request was already ${before.status}`, { status: before.status });
      const approve = input.decision === 'approve';
      const orgId = approve ? (input.organization_id ?? null) : null;
      if (orgId && !(await trx('organizations').where({ id: orgId }).first('id'))) {
        throw httpError(422, 'organization_not_found', 'No organization with this id', { organization_id: orgId });
      }
      const now = new Date();
      const credits = approve && orgId ? this.d.credits() : null;
      const fixes = credits ? (input.fixes ?? this.d.defaultFixes) : null;
      const expiresAt = credits
        ? new Date(now.getTime() + (input.expires_in_days ?? this.d.defaultExpiryDays) * DAY)
        : null;
      if (credits && orgId && fixes) {
        await credits.grant(trx, {
          orgId,
          source: 'sponsored',
          fixes,
          reference: `oss:${id}`,
          expiresAt,
          note: `Open-source sponsorship of ${before.repository_key}`,
        });
      }
      const patch = {
        status: approve ? 'approved' : 'declined',
        decided_at: now,
        decided_by: by.userId,
        decided_by_email: by.email,
        decision_note: input.note?.trim() || null,
        organization_id: orgId,
        fixes_granted: fixes,
        credits_expire_at: expiresAt,
        updated_at: now,
      };
      await trx('oss_sponsorship_requests').where({ id }).update(patch);
      // Recorded as staff (the reviewer's user), with the request's details.
      const actor = { ...by, type: 'staff' as const, id: by.userId };
      const entry = {
        actor,
        action: `oss_sponsorship.${patch.status}`,
        target: { type: 'oss_sponsorship_request', id },
        changes: { status: { before: 'received', after: patch.status } },
        metadata: { repository: before.repository_key, organization_id: orgId, fixes_granted: fixes },
      };
      // In the staff member's log, and in the sponsored organization's log when credits went there.
      await this.d.audit().record(trx, { orgId: by.orgId, ...entry });
      if (orgId && orgId !== by.orgId) await this.d.audit().record(trx, { orgId, ...entry });
      await this.d
        .outbox()
        .add(
          trx,
          'analytics.oss_sponsorship_decided',
          { request_id: id, status: patch.status, organization_id: orgId, fixes_granted: fixes },
          { orgId },
        );
      const locale = before.locale === 'it' ? 'it' : 'en';
      const creditsText = fixes
        ? locale === 'it'
          ? `Abbiamo aggiunto ${fixes} interventi sponsorizzati al suo account, validi fino al ${expiresAt!.toISOString().slice(0, 10)}.`
          : `We added ${fixes} sponsored fixes to your account, valid until ${expiresAt!.toISOString().slice(0, 10)}.`
        : locale === 'it'
          ? "Ci scriva dall'account del progetto per ricevere gli interventi sponsorizzati."
          : "Write to us from your project's account to receive the sponsored fixes.";
      await this.d.mailer().enqueue(trx, {
        orgId,
        template: approve ? 'analytics.oss_sponsorship_approved' : 'analytics.oss_sponsorship_declined',
        locale,
        to: before.email,
        data: {
          name: before.name,
          repository: before.repository_key,
          credits: creditsText,
          note: patch.decision_note ?? '',
        },
      });
      return this.out({ ...before, ...patch } as RequestRow);
    });
  }
}
