import type { Knex } from 'knex';
import type { Principal } from '../../../core/http/auth.js';
import { notFound } from '../../../core/http/errors.js';
import { BrandProfileRow, PROFILE_COLUMNS } from '../models.js';
import { baseUrl, orgFacts, statusCnameTarget, type BrandDeps, type OrgFacts } from './deps.js';
import { profileOut } from './serialize.js';

/** Brand profile rows: finding them (by id, default, effective for a workspace, by status host), locking them, answering them. */
export class ProfileRecords {
  constructor(private readonly d: BrandDeps) {}

  /** A profile of the caller's organization (without the logo bytes); another organization's id is not found. */
  async find(db: Knex, orgId: string, id: string): Promise<BrandProfileRow> {
    const row = await BrandProfileRow.query(db).forOrg(orgId).select(PROFILE_COLUMNS).findById(id);
    if (!row) throw notFound('brand profile');
    return row;
  }

  async profiles(db: Knex, orgId: string): Promise<BrandProfileRow[]> {
    return BrandProfileRow.query(db)
      .forOrg(orgId)
      .select(PROFILE_COLUMNS)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
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
    return BrandProfileRow.query(db)
      .acrossOrgs('public pages are served by Host')
      .select(PROFILE_COLUMNS)
      .whereRaw('lower(status_domain) = ?', [name])
      .where({ status_verified: true })
      .limit(1)
      .first();
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

  /** A profile of the organization, locked for a write; another organization's id is not found. */
  async lock(trx: Knex, orgId: string, id: string): Promise<BrandProfileRow> {
    const row = await BrandProfileRow.query(trx).forOrg(orgId).select(PROFILE_COLUMNS).findById(id).forUpdate();
    if (!row) throw notFound('brand profile');
    return row;
  }
}
