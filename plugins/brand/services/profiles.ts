import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import { newId } from '../../../core/data/ids.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, httpError } from '../../../core/http/errors.js';
import { BrandProfileRow, PROFILE_COLUMNS } from '../models.js';
import { accessiblePrimary } from './color.js';
import { baseUrl, orgFacts, type BrandDeps, type BrandWorkspace, type OrgFacts } from './deps.js';
import { DEFAULT_FONT } from './fonts.js';
import type { LogoContentType } from './image.js';
import { BrandLogos, NO_UPLOAD } from './logos.js';
import { AUDITED, assertBadge, snapshot, writeValues, type ProfileInput } from './profile-input.js';
import { ProfileRecords } from './profile-records.js';
import { StatusDomains } from './profile-status-domain.js';
import type { BrandLook } from './preview.js';
import { badgeShows, logoUrlOf } from './serialize.js';
import type { SignedInActor } from '../../../core/contracts/index.js';

export type { ProfileInput } from './profile-input.js';

/**
 * Brand profiles of an organization: the look and sender of every customer-facing surface, the
 * default profile and its fallback, the logo (logos.ts: uploaded bytes, sniffed and measured) and
 * the status-page domain with its DNS verification (profile-status-domain.ts). Rows are read and
 * answered by profile-records.ts; this is the one `brandService` routes and other plugins call.
 */
export class BrandService {
  private readonly records: ProfileRecords;
  private readonly logos: BrandLogos;
  private readonly statusDomains: StatusDomains;

  constructor(private readonly d: BrandDeps) {
    this.records = new ProfileRecords(d);
    this.logos = new BrandLogos(d, this.records);
    this.statusDomains = new StatusDomains(d, this.records);
  }

  // ---- reads (profile-records.ts) ---------------------------------------------------------

  /** A profile of the caller's organization (without the logo bytes); another organization's id is not found. */
  find(db: Knex, orgId: string, id: string): Promise<BrandProfileRow> {
    return this.records.find(db, orgId, id);
  }

  profiles(db: Knex, orgId: string): Promise<BrandProfileRow[]> {
    return this.records.profiles(db, orgId);
  }

  defaultProfile(db: Knex, orgId: string): Promise<BrandProfileRow | undefined> {
    return this.records.defaultProfile(db, orgId);
  }

  /** The profile a workspace shows: its own, else the organization's default, else none (the workspace's name as text). */
  effectiveProfile(db: Knex, orgId: string, brandProfileId: string | null): Promise<BrandProfileRow | undefined> {
    return this.records.effectiveProfile(db, orgId, brandProfileId);
  }

  /** The profile with a verified status domain equal to `host`, across organizations (public pages by Host). */
  byVerifiedStatusHost(db: Knex, host: string): Promise<BrandProfileRow | undefined> {
    return this.records.byVerifiedStatusHost(db, host);
  }

  out(db: Knex, row: BrandProfileRow, org?: OrgFacts): Promise<Record<string, unknown>> {
    return this.records.out(db, row, org);
  }

  get(principal: Principal, id: string): Promise<Record<string, unknown>> {
    return this.records.get(principal, id);
  }

  /** How a profile looks on customer-facing surfaces (emails, status pages, previews). */
  lookOf(row: BrandProfileRow, org: Pick<OrgFacts, 'badge_removal_addon'>): BrandLook {
    return {
      name: row.name,
      logoUrl: logoUrlOf(baseUrl(this.d.config), row),
      color: accessiblePrimary(row.primary_color).color,
      fontFamily: row.font_family,
      theme: row.theme,
      locale: row.locale,
      showBadge: badgeShows(row, org.badge_removal_addon),
      websiteUrl: row.website_url ?? null,
    };
  }

  /** The preview page's data for a profile id (public: it shows only what customers see anyway). */
  async previewOf(id: string): Promise<BrandLook | null> {
    const row = await BrandProfileRow.query(this.d.db)
      .acrossOrgs('public brand preview by profile id')
      .select(PROFILE_COLUMNS)
      .findById(id);
    if (!row) return null;
    return this.lookOf(row, await orgFacts(this.d.db, row.org_id));
  }

  // ---- writes -----------------------------------------------------------------------------

  /** POST /v1/brand/profiles: the first profile is the default; more need a plan with brand profiles. */
  async create(actor: SignedInActor, input: ProfileInput & { name: string }): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      await trx('organizations').where({ id: p.orgId }).forUpdate().select('id');
      const org = await orgFacts(trx, p.orgId);
      const existing = await this.records.profiles(trx, p.orgId);
      if (existing.length >= 1 && !this.d.planCatalog.hasFeature(org.plan, 'brand_profiles')) {
        throw httpError(
          402,
          'plan_limit_reached',
          'Your plan includes one brand profile; more need a plan with brand profiles',
          { reason: 'brand_profiles' },
        );
      }
      assertBadge(input, org);
      const isDefault = existing.length === 0 || input.is_default === true;
      if (isDefault)
        await BrandProfileRow.query(trx).forOrg(p.orgId).where({ is_default: true }).patch({ is_default: false });
      const now = new Date();
      const values = writeValues(input);
      const row = await BrandProfileRow.query(trx).insert({
        id: newId(BrandProfileRow.idPrefix),
        org_id: p.orgId,
        name: input.name.trim(),
        is_default: isDefault,
        primary_color: values.primary_color ?? this.d.options.defaultPrimaryColor.toLowerCase(),
        font_family: values.font_family ?? DEFAULT_FONT,
        locale: values.locale ?? 'en',
        theme: values.theme ?? 'light',
        sender_name: values.sender_name ?? null,
        sender_email: values.sender_email ?? null,
        website_url: values.website_url ?? null,
        show_badge: values.show_badge ?? true,
        widget_texts: values.widget_texts ?? {},
        logo_source: values.logo_url ? 'url' : null,
        logo_url: values.logo_url ?? null,
        status_verified: false,
        status_cname_ok: false,
        status_txt_ok: false,
        created_at: now,
        updated_at: now,
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'brand.profile_created',
        target: { type: 'brand_profile', id: row.id },
        changes: diffFields({}, { name: row.name, is_default: row.is_default }),
      });
      await this.d.outbox.add(trx, 'brand.profile_created', { brand_profile_id: row.id }, { orgId: p.orgId });
      return this.records.out(trx, await this.records.find(trx, p.orgId, row.id), org);
    });
  }

  /** PATCH /v1/brand/profiles/{id}: one default stays; a linked logo replaces an uploaded one. */
  async update(actor: SignedInActor, id: string, input: ProfileInput): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      const before = await this.records.lock(trx, p.orgId, id);
      const org = await orgFacts(trx, p.orgId);
      assertBadge(input, org);
      if (input.is_default === false && before.is_default) {
        throw httpError(
          422,
          'default_required',
          'An organization keeps one default brand profile: make another profile the default instead',
        );
      }
      const patch: Record<string, unknown> = writeValues(input);
      if (input.name !== undefined) patch.name = input.name.trim();
      if (input.is_default === true && !before.is_default) patch.is_default = true;
      if (input.logo_url !== undefined) {
        // A linked logo replaces an uploaded one; clearing the link leaves an upload alone.
        if (input.logo_url) Object.assign(patch, { logo_source: 'url', logo_url: input.logo_url, ...NO_UPLOAD });
        else if (before.logo_source === 'url') Object.assign(patch, { logo_source: null, logo_url: null });
        else delete patch.logo_url;
      }
      if (input.is_default === true && !before.is_default) {
        await BrandProfileRow.query(trx).forOrg(p.orgId).where({ is_default: true }).patch({ is_default: false });
      }
      const changes = diffFields(
        snapshot(before),
        { ...snapshot(before), ...patch },
        AUDITED.filter((k) => k in patch),
      );
      if (Object.keys(changes).length === 0) return this.records.out(trx, before, org);
      await BrandProfileRow.query(trx)
        .forOrg(p.orgId)
        .findById(id)
        .patch({ ...patch, updated_at: new Date() });
      await recordChanges(
        this.d,
        trx,
        { orgId: p.orgId, actor, action: 'brand.profile_updated', target: { type: 'brand_profile', id }, changes },
        'brand.profile_updated',
        { brand_profile_id: id },
      );
      return this.records.out(trx, await this.records.find(trx, p.orgId, id), org);
    });
  }

  /**
   * Deletes a profile; its workspaces fall back to the default profile. The default profile
   * goes last (make another the default first), and a profile that still has email domains
   * registered keeps them until they are deleted in the domains section.
   */
  async remove(actor: SignedInActor, id: string): Promise<{ ok: true }> {
    const p = actor.principal;
    await this.d.db.transaction(async (trx) => {
      const row = await this.records.lock(trx, p.orgId, id);
      const others = (await this.records.profiles(trx, p.orgId)).filter((r) => r.id !== id);
      if (row.is_default && others.length > 0) {
        throw conflict(
          'default_profile',
          'This is the default brand profile: make another profile the default before deleting it',
          { profiles: others.map((o) => o.id) },
        );
      }
      const domains = this.d.emailDomains ? await this.d.emailDomains.ofBrand(trx, p.orgId, id) : [];
      if (domains.length > 0) {
        throw conflict('profile_has_domains', 'Delete the email domains of this brand profile first', {
          domains: domains.map((dm) => ({ name: dm.name, purpose: dm.purpose })),
        });
      }
      // The workspaces table belongs to the workspaces plugin; null means "the default profile".
      const moved: { id: string }[] = await trx('workspaces')
        .where({ org_id: p.orgId, brand_profile_id: id })
        .update({ brand_profile_id: null, updated_at: new Date() }, ['id']);
      await BrandProfileRow.query(trx).forOrg(p.orgId).deleteById(id);
      await this.d.audit.record(trx, {
        actor,
        action: 'brand.profile_deleted',
        target: { type: 'brand_profile', id },
        changes: {
          name: { before: row.name, after: null },
          workspaces_moved_to_default: { before: moved.map((m) => m.id), after: [] },
        },
      });
      await this.d.outbox.add(
        trx,
        'brand.profile_deleted',
        { brand_profile_id: id, workspace_ids: moved.map((m) => m.id) },
        { orgId: p.orgId },
      );
    });
    return { ok: true };
  }

  // ---- logo (logos.ts) --------------------------------------------------------------------

  /** Stores an uploaded logo after reading its real type and size from the bytes. */
  putLogo(
    actor: SignedInActor,
    id: string,
    input: { content_type: LogoContentType; data_base64: string },
  ): Promise<Record<string, unknown>> {
    return this.logos.putLogo(actor, id, input);
  }

  deleteLogo(actor: SignedInActor, id: string): Promise<Record<string, unknown>> {
    return this.logos.deleteLogo(actor, id);
  }

  /** The uploaded logo bytes (public asset route); null when the profile has none. */
  logoBytes(id: string): Promise<{ data: Buffer; contentType: string; sha256: string } | null> {
    return this.logos.logoBytes(id);
  }

  // ---- status domain (profile-status-domain.ts) -------------------------------------------

  setStatusDomain(actor: SignedInActor, id: string, domainInput: string): Promise<Record<string, unknown>> {
    return this.statusDomains.setStatusDomain(actor, id, domainInput);
  }

  clearStatusDomain(actor: SignedInActor, id: string): Promise<Record<string, unknown>> {
    return this.statusDomains.clearStatusDomain(actor, id);
  }

  /** Checks the CNAME and TXT now (POST …/status-domain/verify). */
  verifyStatusDomain(actor: SignedInActor, id: string): Promise<{ profile: Record<string, unknown> }> {
    return this.statusDomains.verifyStatusDomain(actor, id);
  }

  /** Looks the records up and stores the outcome; true when the domain became verified. */
  check(row: BrandProfileRow, actor: SignedInActor | null): Promise<boolean> {
    return this.statusDomains.check(row, actor);
  }

  /** Scheduled: checks status domains not checked for `statusRecheckMinutes`. */
  recheckDue(limit = 50): Promise<number> {
    return this.statusDomains.recheckDue(limit);
  }

  // ---- workspaces -------------------------------------------------------------------------

  /** PUT /v1/brand/workspaces/{id}: the workspace's profile (null: the default); the workspaces plugin audits the change. */
  async assign(actor: SignedInActor, workspaceId: string, brandProfileId: string | null): Promise<BrandWorkspace> {
    const p = actor.principal;
    await this.d.workspaces.open(p, workspaceId);
    if (brandProfileId) await this.records.find(this.d.db, p.orgId, brandProfileId);
    return this.d.workspaces.update(
      p,
      workspaceId,
      { brand_profile_id: brandProfileId },
      { ip: actor.ip ?? null, userAgent: actor.userAgent ?? null, requestId: actor.requestId ?? null },
    );
  }

  /** Workspaces (not archived) the caller can open. */
  async visibleWorkspaces(principal: Principal): Promise<BrandWorkspace[]> {
    const rows: { id: string }[] = await this.d
      .db('workspaces')
      .where({ org_id: principal.orgId })
      .whereNull('archived_at')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('id');
    const out: BrandWorkspace[] = [];
    for (const r of rows)
      if (canOpenWorkspace(principal, r.id)) out.push(await this.d.workspaces.get(principal.orgId, r.id));
    return out;
  }
}
