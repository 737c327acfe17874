import { createHash, randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { newId } from '../../../core/data/ids.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { BrandProfileRow, PROFILE_COLUMNS, type WidgetTexts } from '../models.js';
import { accessiblePrimary, normalizeHex } from './color.js';
import { auditActor, baseUrl, orgFacts, statusCnameTarget, type Actor, type BrandDeps, type BrandWorkspace, type OrgFacts } from './deps.js';
import { DEFAULT_FONT } from './fonts.js';
import { sniffImage, type LogoContentType } from './image.js';
import type { BrandLook } from './preview.js';
import { badgeShows, logoUrlOf, profileOut } from './serialize.js';
import { checkStatusRecords, statusDomainProblem, statusRecords } from './status-domain.js';

/** The write shape of a brand profile (create and update). */
export interface ProfileInput {
  name?: string;
  is_default?: boolean;
  primary_color?: string;
  sender_name?: string | null;
  sender_email?: string | null;
  font_family?: string;
  locale?: 'en' | 'it';
  website_url?: string | null;
  logo_url?: string | null;
  show_badge?: boolean;
  widget_texts?: WidgetTexts;
  theme?: 'light' | 'dark';
}

const AUDITED = ['name', 'is_default', 'primary_color', 'sender_name', 'sender_email', 'font_family', 'locale', 'website_url', 'logo_url', 'show_badge', 'widget_texts', 'theme'];

function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: string; nativeError?: { code?: string } } | null;
  return !!e && (e.code === '23505' || e.nativeError?.code === '23505');
}

const blankToNull = (v: string | null | undefined): string | null | undefined => (v === undefined ? undefined : v === null || v.trim() === '' ? null : v.trim());

/**
 * Brand profiles of an organization: the look and sender of every customer-facing surface, the
 * default profile and its fallback, the logo (uploaded bytes, sniffed and measured) and the
 * status-page domain with its DNS verification.
 */
export class BrandService {
  constructor(private readonly d: BrandDeps) {}

  // ---- reads ------------------------------------------------------------------------------

  /** A profile of the caller's organization (without the logo bytes); another organization's id is not found. */
  async find(db: Knex, orgId: string, id: string): Promise<BrandProfileRow> {
    const row = await BrandProfileRow.query(db).forOrg(orgId).select(PROFILE_COLUMNS).findById(id);
    if (!row) throw notFound('brand profile');
    return row;
  }

  async profiles(db: Knex, orgId: string): Promise<BrandProfileRow[]> {
    return BrandProfileRow.query(db).forOrg(orgId).select(PROFILE_COLUMNS).orderBy([{ column: 'created_at' }, { column: 'id' }]);
  }

  async defaultProfile(db: Knex, orgId: string): Promise<BrandProfileRow | undefined> {
    return BrandProfileRow.query(db).forOrg(orgId).select(PROFILE_COLUMNS).where({ is_default: true }).limit(1).first();
  }

  /** The profile a workspace shows: its own, else the organization's default, else none (the workspace's name as text). */
  async effectiveProfile(db: Knex, orgId: string, brandProfileId: string | null): Promise<BrandProfileRow | undefined> {
    if (brandProfileId) {
      const own = await BrandProfileRow.query(db).forOrg(orgId).select(PROFILE_COLUMNS).findById(brandProfileId);
      if (own) return own;
    }
    return this.defaultProfile(db, orgId);
  }

  /** The profile with a verified status domain equal to `host`, across organizations (public pages by Host). */
  async byVerifiedStatusHost(db: Knex, host: string): Promise<BrandProfileRow | undefined> {
    const name = host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
    if (!name) return undefined;
    return BrandProfileRow.query(db).acrossOrgs('public pages are served by Host').select(PROFILE_COLUMNS)
      .whereRaw('lower(status_domain) = ?', [name]).where({ status_verified: true }).limit(1).first();
  }

  async out(db: Knex, row: BrandProfileRow, org?: OrgFacts): Promise<Record<string, unknown>> {
    const facts = org ?? (await orgFacts(db, row.org_id));
    const emailDomains = this.d.emailDomains ? await this.d.emailDomains.ofBrand(db, row.org_id, row.id) : [];
    return profileOut(row, {
      baseUrl: baseUrl(this.d.config),
      cnameTarget: statusCnameTarget(this.d),
      txtLabel: this.d.options.statusTxtLabel,
      badgeRemoval: facts.badge_removal_addon,
      emailDomains,
    });
  }

  async get(principal: Principal, id: string): Promise<Record<string, unknown>> {
    return this.out(this.d.db, await this.find(this.d.db, principal.orgId, id));
  }

  // ---- writes -----------------------------------------------------------------------------

  async create(actor: Actor, input: ProfileInput & { name: string }): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      await trx('organizations').where({ id: p.orgId }).forUpdate().select('id');
      const org = await orgFacts(trx, p.orgId);
      const existing = await this.profiles(trx, p.orgId);
      if (existing.length >= 1 && !this.d.planCatalog.hasFeature(org.plan, 'brand_profiles')) {
        throw httpError(402, 'plan_limit_reached', 'Your plan includes one brand profile; more need a plan with brand profiles', { reason: 'brand_profiles' });
      }
      this.assertBadge(input, org);
      const isDefault = existing.length === 0 || input.is_default === true;
      if (isDefault) await BrandProfileRow.query(trx).forOrg(p.orgId).where({ is_default: true }).patch({ is_default: false });
      const now = new Date();
      const values = this.writeValues(input);
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
        orgId: p.orgId, ...auditActor(actor), action: 'brand.profile_created', target: { type: 'brand_profile', id: row.id },
        changes: diffFields({}, { name: row.name, is_default: row.is_default }),
      });
      await this.d.outbox.add(trx, 'brand.profile_created', { brand_profile_id: row.id }, { orgId: p.orgId });
      return this.out(trx, await this.find(trx, p.orgId, row.id), org);
    });
  }

  async update(actor: Actor, id: string, input: ProfileInput): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      const before = await this.lock(trx, p.orgId, id);
      const org = await orgFacts(trx, p.orgId);
      this.assertBadge(input, org);
      if (input.is_default === false && before.is_default) {
        throw httpError(422, 'default_required', 'An organization keeps one default brand profile: make another profile the default instead');
      }
      const patch: Record<string, unknown> = this.writeValues(input);
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
      const changes = diffFields(snapshot(before), { ...snapshot(before), ...patch }, AUDITED.filter((k) => k in patch));
      if (Object.keys(changes).length === 0) return this.out(trx, before, org);
      await BrandProfileRow.query(trx).forOrg(p.orgId).findById(id).patch({ ...patch, updated_at: new Date() });
      await this.d.audit.record(trx, { orgId: p.orgId, ...auditActor(actor), action: 'brand.profile_updated', target: { type: 'brand_profile', id }, changes });
      await this.d.outbox.add(trx, 'brand.profile_updated', { brand_profile_id: id, fields: Object.keys(changes) }, { orgId: p.orgId });
      return this.out(trx, await this.find(trx, p.orgId, id), org);
    });
  }

  /**
   * Deletes a profile; its workspaces fall back to the default profile. The default profile
   * goes last (make another the default first), and a profile that still has email domains
   * registered keeps them until they are deleted in the domains section.
   */
  async remove(actor: Actor, id: string): Promise<{ ok: true }> {
    const p = actor.principal;
    await this.d.db.transaction(async (trx) => {
      const row = await this.lock(trx, p.orgId, id);
      const others = (await this.profiles(trx, p.orgId)).filter((r) => r.id !== id);
      if (row.is_default && others.length > 0) {
        throw conflict('default_profile', 'This is the default brand profile: make another profile the default before deleting it', { profiles: others.map((o) => o.id) });
      }
      const domains = this.d.emailDomains ? await this.d.emailDomains.ofBrand(trx, p.orgId, id) : [];
      if (domains.length > 0) {
        throw conflict('profile_has_domains', 'Delete the email domains of this brand profile first', { domains: domains.map((dm) => ({ name: dm.name, purpose: dm.purpose })) });
      }
      // The workspaces table belongs to the workspaces plugin; null means "the default profile".
      const moved = (await trx('workspaces').where({ org_id: p.orgId, brand_profile_id: id }).update({ brand_profile_id: null, updated_at: new Date() }, ['id'])) as { id: string }[];
      await BrandProfileRow.query(trx).forOrg(p.orgId).deleteById(id);
      await this.d.audit.record(trx, {
        orgId: p.orgId, ...auditActor(actor), action: 'brand.profile_deleted', target: { type: 'brand_profile', id },
        changes: { name: { before: row.name, after: null }, workspaces_moved_to_default: { before: moved.map((m) => m.id), after: [] } },
      });
      await this.d.outbox.add(trx, 'brand.profile_deleted', { brand_profile_id: id, workspace_ids: moved.map((m) => m.id) }, { orgId: p.orgId });
    });
    return { ok: true };
  }

  /** Stores an uploaded logo after reading its real type and size from the bytes. */
  async putLogo(actor: Actor, id: string, input: { content_type: LogoContentType; data_base64: string }): Promise<Record<string, unknown>> {
    const p = actor.principal;
    const bytes = decodeBase64(input.data_base64);
    if (bytes.length === 0) throw httpError(422, 'invalid_image', 'The logo is empty');
    if (bytes.length > this.d.options.maxLogoBytes) {
      throw httpError(413, 'payload_too_large', `The logo is ${bytes.length} bytes; at most ${this.d.options.maxLogoBytes} bytes (512 KiB) are accepted`, { size_bytes: bytes.length, max_bytes: this.d.options.maxLogoBytes });
    }
    const info = sniffImage(bytes);
    if (!info) throw httpError(422, 'unsupported_image', 'The logo must be a PNG, JPEG or WebP image', { accepted: ['image/png', 'image/jpeg', 'image/webp'] });
    if (info.contentType !== input.content_type) {
      throw httpError(422, 'content_type_mismatch', `The file is ${info.contentType}, not ${input.content_type}`, { declared: input.content_type, detected: info.contentType });
    }
    const max = this.d.options.maxLogoPixels;
    if (info.width > max || info.height > max) {
      throw httpError(422, 'image_too_large', `The logo is ${info.width}×${info.height} pixels; at most ${max}×${max}`, { width: info.width, height: info.height, max_pixels: max });
    }
    return this.d.db.transaction(async (trx) => {
      const before = await this.lock(trx, p.orgId, id);
      const sha = createHash('sha256').update(bytes).digest('hex');
      const now = new Date();
      await BrandProfileRow.query(trx).forOrg(p.orgId).findById(id).patch({
        logo_source: 'upload', logo_url: null, logo_data: bytes, logo_content_type: info.contentType, logo_width: info.width, logo_height: info.height,
        logo_size_bytes: bytes.length, logo_sha256: sha, logo_uploaded_at: now, updated_at: now,
      });
      await this.d.audit.record(trx, {
        orgId: p.orgId, ...auditActor(actor), action: 'brand.logo_uploaded', target: { type: 'brand_profile', id },
        changes: { logo: { before: before.logo_source ? { source: before.logo_source, sha256: before.logo_sha256 } : null, after: { source: 'upload', sha256: sha, content_type: info.contentType, size_bytes: bytes.length } } },
      });
      await this.d.outbox.add(trx, 'brand.profile_updated', { brand_profile_id: id, fields: ['logo'] }, { orgId: p.orgId });
      return this.out(trx, await this.find(trx, p.orgId, id));
    });
  }

  async deleteLogo(actor: Actor, id: string): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      const before = await this.lock(trx, p.orgId, id);
      if (before.logo_source) {
        await BrandProfileRow.query(trx).forOrg(p.orgId).findById(id).patch({ logo_source: null, logo_url: null, ...NO_UPLOAD, updated_at: new Date() });
        await this.d.audit.record(trx, {
          orgId: p.orgId, ...auditActor(actor), action: 'brand.logo_deleted', target: { type: 'brand_profile', id },
          changes: { logo: { before: { source: before.logo_source, url: before.logo_url, sha256: before.logo_sha256 }, after: null } },
        });
        await this.d.outbox.add(trx, 'brand.profile_updated', { brand_profile_id: id, fields: ['logo'] }, { orgId: p.orgId });
      }
      return this.out(trx, await this.find(trx, p.orgId, id));
    });
  }

  /** The uploaded logo bytes (public asset route); null when the profile has none. */
  async logoBytes(id: string): Promise<{ data: Buffer; contentType: string; sha256: string } | null> {
    const row = (await this.d.db('brand_profiles').select('logo_data', 'logo_content_type', 'logo_sha256').where({ id, logo_source: 'upload' }).first()) as
      | { logo_data: Buffer | Uint8Array | null; logo_content_type: string | null; logo_sha256: string | null }
      | undefined;
    if (!row?.logo_data || !row.logo_content_type) return null;
    return { data: Buffer.from(row.logo_data), contentType: row.logo_content_type, sha256: row.logo_sha256 ?? '' };
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
    const row = await BrandProfileRow.query(this.d.db).acrossOrgs('public brand preview by profile id').select(PROFILE_COLUMNS).findById(id);
    if (!row) return null;
    return this.lookOf(row, await orgFacts(this.d.db, row.org_id));
  }

  // ---- status domain ----------------------------------------------------------------------

  async setStatusDomain(actor: Actor, id: string, domainInput: string): Promise<Record<string, unknown>> {
    const p = actor.principal;
    const domain = domainInput.trim().toLowerCase().replace(/\.$/, '');
    const own = [new URL(this.d.config.server.publicBaseUrl).hostname, statusCnameTarget(this.d)].map((h) => h.toLowerCase());
    const problem = statusDomainProblem(domain, own);
    if (problem) throw httpError(422, 'domain_not_allowed', `${domain} cannot be a status domain: ${problem}`, { domain });
    return this.d.db.transaction(async (trx) => {
      const before = await this.lock(trx, p.orgId, id);
      const org = await orgFacts(trx, p.orgId);
      if (!this.d.planCatalog.hasFeature(org.plan, 'custom_sending_domain')) {
        throw httpError(402, 'plan_limit_reached', 'Custom domains are not part of your plan', { reason: 'custom_domain_in_plan' });
      }
      if (before.status_domain === domain) return this.out(trx, before, org);
      const taken = await BrandProfileRow.query(trx).acrossOrgs('a status domain serves one brand').select('id')
        .whereRaw('lower(status_domain) = ?', [domain]).whereNot({ id }).where((q) => q.where({ status_verified: true }).orWhere({ org_id: p.orgId })).limit(1).first();
      if (taken) throw conflict('domain_taken', `${domain} is already the status domain of another brand`, { domain });
      const now = new Date();
      await BrandProfileRow.query(trx).forOrg(p.orgId).findById(id).patch({
        status_domain: domain, status_txt_token: randomBytes(16).toString('hex'), ...STATUS_RESET, updated_at: now,
      });
      await this.d.audit.record(trx, {
        orgId: p.orgId, ...auditActor(actor), action: 'brand.status_domain_set', target: { type: 'brand_profile', id },
        changes: { status_domain: { before: before.status_domain, after: domain } },
      });
      await this.d.outbox.add(trx, 'brand.status_domain_changed', { brand_profile_id: id, domain }, { orgId: p.orgId });
      return this.out(trx, await this.find(trx, p.orgId, id), org);
    });
  }

  async clearStatusDomain(actor: Actor, id: string): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      const before = await this.lock(trx, p.orgId, id);
      if (before.status_domain) {
        await BrandProfileRow.query(trx).forOrg(p.orgId).findById(id).patch({ status_domain: null, status_txt_token: null, ...STATUS_RESET, updated_at: new Date() });
        await this.d.audit.record(trx, {
          orgId: p.orgId, ...auditActor(actor), action: 'brand.status_domain_removed', target: { type: 'brand_profile', id },
          changes: { status_domain: { before: before.status_domain, after: null } },
        });
        await this.d.outbox.add(trx, 'brand.status_domain_changed', { brand_profile_id: id, domain: null }, { orgId: p.orgId });
      }
      return this.out(trx, await this.find(trx, p.orgId, id));
    });
  }

  /** Checks the CNAME and TXT now (POST …/status-domain/verify). */
  async verifyStatusDomain(actor: Actor, id: string): Promise<{ profile: Record<string, unknown> }> {
    const p = actor.principal;
    const row = await this.find(this.d.db, p.orgId, id);
    if (!row.status_domain) throw conflict('no_status_domain', 'Set a status domain first (PUT /v1/brand/profiles/{id}/status-domain)');
    await this.check(row, actor);
    return { profile: await this.get(p, id) };
  }

  /**
   * Looks the records up and stores the outcome. A verified domain whose records start failing
   * keeps serving for `statusGraceHours` from `failing_since`, then is unverified. Returns true
   * when the domain became verified.
   */
  async check(row: BrandProfileRow, actor: Actor | null): Promise<boolean> {
    if (!row.status_domain || !row.status_txt_token) return false;
    const records = statusRecords(row.status_domain, row.status_txt_token, { cnameTarget: statusCnameTarget(this.d), txtLabel: this.d.options.statusTxtLabel });
    const result = await checkStatusRecords(this.d.dns, records);
    return this.d.db.transaction(async (trx) => {
      const current = await BrandProfileRow.query(trx).forOrg(row.org_id).select(PROFILE_COLUMNS).findById(row.id).forUpdate();
      if (!current || current.status_domain !== row.status_domain || current.status_txt_token !== row.status_txt_token) return false;
      const now = new Date();
      let error = result.error;
      if (!error) {
        const taken = await BrandProfileRow.query(trx).acrossOrgs('a status domain serves one brand').select('id')
          .whereRaw('lower(status_domain) = ?', [row.status_domain]).where({ status_verified: true }).whereNot({ id: row.id }).limit(1).first();
        if (taken) error = 'domain_taken';
      }
      const patch: Record<string, unknown> = { status_cname_ok: result.cnameOk, status_txt_ok: result.txtOk, status_last_checked_at: now, status_last_error: error };
      if (!error) Object.assign(patch, { status_verified: true, status_verified_at: current.status_verified ? current.status_verified_at : now, status_failing_since: null });
      else {
        const since = current.status_failing_since ?? now;
        patch.status_failing_since = since;
        const graceOver = now.getTime() - new Date(since).getTime() >= this.d.options.statusGraceHours * 3600_000;
        if (current.status_verified && (graceOver || error === 'domain_taken')) Object.assign(patch, { status_verified: false, status_verified_at: null });
      }
      try {
        await BrandProfileRow.query(trx).forOrg(row.org_id).findById(row.id).patch(patch);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        return false; // verified elsewhere at the same moment; the next check reports domain_taken
      }
      const became = !error && !current.status_verified;
      const lost = !!error && current.status_verified && patch.status_verified === false;
      if (became || lost) {
        await this.d.audit.record(trx, {
          orgId: row.org_id,
          ...(actor ? auditActor(actor) : { actor: { type: 'system' as const, id: null, email: null } }),
          action: became ? 'brand.status_domain_verified' : 'brand.status_domain_unverified',
          target: { type: 'brand_profile', id: row.id },
          changes: { status_domain_verified: { before: current.status_verified, after: became }, ...(error ? { last_error: { before: current.status_last_error, after: error } } : {}) },
        });
        await this.d.outbox.add(trx, became ? 'brand.status_domain_verified' : 'brand.status_domain_unverified', { brand_profile_id: row.id, domain: row.status_domain, error }, { orgId: row.org_id });
      }
      return became;
    });
  }

  /** Scheduled: checks status domains not checked for `statusRecheckMinutes` (pending ones and verified ones). */
  async recheckDue(limit = 50): Promise<number> {
    const cutoff = new Date(Date.now() - this.d.options.statusRecheckMinutes * 60_000);
    const due = await BrandProfileRow.query(this.d.db).acrossOrgs('scheduled status-domain checks').select(PROFILE_COLUMNS)
      .whereNotNull('status_domain').where((q) => q.whereNull('status_last_checked_at').orWhere('status_last_checked_at', '<', cutoff))
      .orderBy('status_last_checked_at', 'asc').limit(limit);
    for (const row of due) await this.check(row, null);
    return due.length;
  }

  // ---- workspaces -------------------------------------------------------------------------

  /** PUT /v1/brand/workspaces/{id}: the workspace's profile (null: the default); the workspaces plugin audits the change. */
  async assign(actor: Actor, workspaceId: string, brandProfileId: string | null): Promise<BrandWorkspace> {
    const p = actor.principal;
    await this.d.workspaces.open(p, workspaceId);
    if (brandProfileId) await this.find(this.d.db, p.orgId, brandProfileId);
    return this.d.workspaces.update(p, workspaceId, { brand_profile_id: brandProfileId }, { ip: actor.ip ?? null, userAgent: actor.userAgent ?? null, requestId: actor.requestId ?? null });
  }

  /** Workspaces (not archived) the caller can open. */
  async visibleWorkspaces(principal: Principal): Promise<BrandWorkspace[]> {
    const rows = (await this.d.db('workspaces').where({ org_id: principal.orgId }).whereNull('archived_at').orderBy([{ column: 'created_at' }, { column: 'id' }]).select('id')) as { id: string }[];
    const out: BrandWorkspace[] = [];
    for (const r of rows) if (canOpenWorkspace(principal, r.id)) out.push(await this.d.workspaces.get(principal.orgId, r.id));
    return out;
  }

  // ---- helpers ----------------------------------------------------------------------------

  private async lock(trx: Knex, orgId: string, id: string): Promise<BrandProfileRow> {
    const row = await BrandProfileRow.query(trx).forOrg(orgId).select(PROFILE_COLUMNS).findById(id).forUpdate();
    if (!row) throw notFound('brand profile');
    return row;
  }

  private assertBadge(input: ProfileInput, org: OrgFacts): void {
    if (input.show_badge === false && !org.badge_removal_addon) {
      throw httpError(402, 'plan_limit_reached', 'Hiding the engine badge needs the badge removal add-on (PUT /v1/billing/addons)', { reason: 'badge_removal_addon' });
    }
  }

  /** Normalized column values of the write shape (undefined keys are left out). */
  private writeValues(input: ProfileInput): Record<string, unknown> & Partial<Pick<BrandProfileRow, 'primary_color' | 'font_family' | 'locale' | 'theme' | 'show_badge' | 'widget_texts'>> & { sender_name?: string | null; sender_email?: string | null; website_url?: string | null; logo_url?: string | null } {
    const out: Record<string, unknown> = {};
    if (input.primary_color !== undefined) out.primary_color = normalizeHex(input.primary_color);
    if (input.font_family !== undefined) out.font_family = input.font_family;
    if (input.locale !== undefined) out.locale = input.locale;
    if (input.theme !== undefined) out.theme = input.theme;
    if (input.show_badge !== undefined) out.show_badge = input.show_badge;
    if (input.widget_texts !== undefined) out.widget_texts = Object.fromEntries(Object.entries(input.widget_texts).filter(([, v]) => typeof v === 'string' && v.trim() !== '').map(([k, v]) => [k, v!.trim()]));
    for (const k of ['sender_name', 'sender_email', 'website_url', 'logo_url'] as const) {
      const v = blankToNull(input[k]);
      if (v !== undefined) out[k] = k === 'sender_email' && v ? v.toLowerCase() : v;
    }
    return out;
  }
}

const NO_UPLOAD = { logo_data: null, logo_content_type: null, logo_width: null, logo_height: null, logo_size_bytes: null, logo_sha256: null, logo_uploaded_at: null };

const STATUS_RESET = {
  status_verified: false, status_verified_at: null, status_cname_ok: false, status_txt_ok: false,
  status_last_checked_at: null, status_last_error: null, status_failing_since: null,
};

function snapshot(row: BrandProfileRow): Record<string, unknown> {
  return Object.fromEntries(AUDITED.map((k) => [k, (row as unknown as Record<string, unknown>)[k] ?? null]));
}

/** Strict base64 (standard or URL-safe alphabet, optional padding); anything else is a 400. */
function decodeBase64(data: string): Buffer {
  const clean = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw httpError(400, 'invalid_request', 'data_base64 is not valid base64', { errors: [{ path: 'payload.data_base64', message: 'must be base64' }] });
  }
  return Buffer.from(clean.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}
