import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { Principal } from '../../../core/http/auth.js';
import { forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { iso } from '../../../core/http/times.js';

export const PARTNER_SERVICES = [
  'setup',
  'managed_support',
  'white_label',
  'custom_integrations',
  'training',
  'development',
] as const;
export type Certification = 'none' | 'requested' | 'certified' | 'revoked';

export interface PartnerInput {
  display_name?: string;
  website_url?: string | null;
  description?: string | null;
  contact_email?: string | null;
  countries?: string[];
  languages?: string[];
  services?: string[];
  listed?: boolean;
  request_certification?: boolean;
  /** Staff only: the organization decided on, and the decision. */
  organization_id?: string;
  certification?: 'certified' | 'revoked' | 'none';
}

interface Row {
  org_id: string;
  display_name: string;
  website_url: string | null;
  description: string | null;
  contact_email: string | null;
  countries: string[];
  languages: string[];
  services: string[];
  listed: boolean;
  certification: Certification;
  certification_requested_at: Date | null;
  certified_at: Date | null;
  certified_by: string | null;
  created_at: Date;
  updated_at: Date;
}

const arr = (v: unknown): string[] =>
  Array.isArray(v) ? (v as string[]) : typeof v === 'string' ? (JSON.parse(v) as string[]) : [];

/**
 * Partner profile of an agency: a public listing (shown by GET /v1/public/partners once staff
 * certified it and the agency lists it) and the referred customers (organizations that signed
 * up with the agency's referral code).
 */
export class PartnerService {
  constructor(private readonly d: { db: () => Knex; audit: () => AuditWriter; outbox: () => Outbox }) {}

  private async org(
    db: Knex,
    orgId: string,
  ): Promise<{ id: string; name: string; type: string; referral_code: string | null }> {
    const org = (await db('organizations')
      .select('id', 'name', 'type', 'referral_code')
      .where({ id: orgId })
      .first()) as { id: string; name: string; type: string; referral_code: string | null } | undefined;
    if (!org) throw notFound('organization');
    return org;
  }

  async get(principal: Principal): Promise<Record<string, unknown>> {
    const db = this.d.db();
    const org = await this.org(db, principal.orgId);
    assertAgency(org);
    const row = (await db('agency_partner_profiles').where({ org_id: org.id }).first()) as Row | undefined;
    return this.out(db, org, row);
  }

  async put(actor: SignedInActor, input: PartnerInput): Promise<Record<string, unknown>> {
    const principal = actor.principal;
    if (input.certification !== undefined || input.organization_id !== undefined) return this.decide(actor, input);
    const db = this.d.db();
    return db.transaction(async (trx) => {
      const org = await this.org(trx, principal.orgId);
      assertAgency(org);
      const before = (await trx('agency_partner_profiles').where({ org_id: org.id }).forUpdate().first()) as
        Row | undefined;
      const now = new Date();
      const patch: Record<string, unknown> = {};
      for (const k of ['display_name', 'website_url', 'description', 'contact_email', 'listed'] as const)
        if (input[k] !== undefined) patch[k] = input[k] === '' ? null : input[k];
      for (const k of ['countries', 'languages', 'services'] as const)
        if (input[k] !== undefined) patch[k] = JSON.stringify([...new Set(input[k])]);
      if (
        input.request_certification &&
        (!before || before.certification === 'none' || before.certification === 'revoked')
      )
        Object.assign(patch, { certification: 'requested', certification_requested_at: now });
      if (!before) {
        await trx('agency_partner_profiles').insert({
          org_id: org.id,
          display_name: org.name,
          countries: '[]',
          languages: '[]',
          services: '[]',
          ...patch,
          created_at: now,
          updated_at: now,
        });
      } else if (Object.keys(patch).length) {
        await trx('agency_partner_profiles')
          .where({ org_id: org.id })
          .update({ ...patch, updated_at: now });
      }
      const after = (await trx('agency_partner_profiles').where({ org_id: org.id }).first()) as Row;
      const fields = [
        'display_name',
        'website_url',
        'description',
        'contact_email',
        'countries',
        'languages',
        'services',
        'listed',
        'certification',
      ];
      const snap = (r: Row | undefined) =>
        r
          ? Object.fromEntries(
              fields.map((f) => [
                f,
                ['countries', 'languages', 'services'].includes(f)
                  ? arr((r as unknown as Record<string, unknown>)[f])
                  : (r as unknown as Record<string, unknown>)[f],
              ]),
            )
          : {};
      const changes = diffFields(snap(before), snap(after), fields);
      if (Object.keys(changes).length) {
        await this.d.audit().record(trx, {
          orgId: org.id,
          actor,
          action: before ? 'agency.partner_updated' : 'agency.partner_created',
          target: { type: 'partner_profile', id: org.id },
          changes,
        });
        if (patch.certification === 'requested')
          await this.d.outbox().add(trx, 'agency.certification_requested', { org_id: org.id }, { orgId: org.id });
      }
      return this.out(trx, org, after);
    });
  }

  /** Staff decide a certification (any agency's profile, by organization_id). */
  private async decide(actor: SignedInActor, input: PartnerInput): Promise<Record<string, unknown>> {
    const principal = actor.principal;
    if (!principal.staff) throw forbidden('Certification is decided by staff');
    if (!input.organization_id || !input.certification)
      throw httpError(400, 'invalid_request', 'organization_id and certification go together', {
        errors: [{ path: 'payload.certification', message: 'needs organization_id' }],
      });
    const db = this.d.db();
    return db.transaction(async (trx) => {
      const org = await this.org(trx, input.organization_id!);
      const before = (await trx('agency_partner_profiles').where({ org_id: org.id }).forUpdate().first()) as
        Row | undefined;
      if (!before) throw notFound('partner profile');
      const now = new Date();
      await trx('agency_partner_profiles')
        .where({ org_id: org.id })
        .update({
          certification: input.certification,
          certified_at: input.certification === 'certified' ? now : null,
          certified_by: input.certification === 'certified' ? principal.email : null,
          updated_at: now,
        });
      await this.d.audit().record(trx, {
        orgId: org.id,
        actor: { ...actor, type: 'staff', id: principal.userId },
        action: 'agency.partner_certification_decided',
        target: { type: 'partner_profile', id: org.id },
        changes: { certification: { before: before.certification, after: input.certification } },
      });
      await this.d
        .outbox()
        .add(
          trx,
          'agency.certification_decided',
          { org_id: org.id, certification: input.certification },
          { orgId: org.id },
        );
      return this.out(trx, org, (await trx('agency_partner_profiles').where({ org_id: org.id }).first()) as Row);
    });
  }

  /** Certified, listed partners (GET /v1/public/partners), by name. */
  async listed(): Promise<Record<string, unknown>[]> {
    const rows = (await this.d
      .db()('agency_partner_profiles')
      .where({ listed: true, certification: 'certified' })
      .orderByRaw('lower(display_name), org_id')
      .limit(500)) as Row[];
    return rows.map((r) => ({
      name: r.display_name,
      website_url: r.website_url,
      description: r.description,
      countries: arr(r.countries),
      languages: arr(r.languages),
      services: arr(r.services),
      certified_at: iso(r.certified_at),
    }));
  }

  private async out(
    db: Knex,
    org: { id: string; name: string; referral_code: string | null },
    row: Row | undefined,
  ): Promise<Record<string, unknown>> {
    const referred: { id: string; name: string; plan: string; created_at: Date }[] = org.referral_code
      ? await db('organizations')
          .where({ referred_by_code: org.referral_code })
          .whereNot({ id: org.id })
          .orderBy('created_at', 'desc')
          .limit(200)
          .select('id', 'name', 'plan', 'created_at')
      : [];
    return {
      organization_id: org.id,
      exists: !!row,
      display_name: row?.display_name ?? org.name,
      website_url: row?.website_url ?? null,
      description: row?.description ?? null,
      contact_email: row?.contact_email ?? null,
      countries: arr(row?.countries),
      languages: arr(row?.languages),
      services: arr(row?.services),
      listed: row?.listed ?? false,
      public: !!row && row.listed && row.certification === 'certified',
      certification: {
        status: row?.certification ?? 'none',
        requested_at: iso(row?.certification_requested_at),
        certified_at: iso(row?.certified_at),
      },
      referral_code: org.referral_code,
      referred_customers: referred.map((r) => ({
        organization_id: r.id,
        name: r.name,
        plan: r.plan,
        signed_up_at: iso(r.created_at),
      })),
      created_at: iso(row?.created_at),
      updated_at: iso(row?.updated_at),
    };
  }
}

export function assertAgency(org: { type: string }): void {
  if (org.type !== 'agency') throw httpError(403, 'not_an_agency', 'Agency features are for agency organizations');
}
