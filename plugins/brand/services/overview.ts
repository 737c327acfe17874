import type { Knex } from 'knex';
import type { Principal } from '../../../core/http/auth.js';
import { orgFacts, type BrandDeps } from './deps.js';
import type { BrandDirectoryService } from './directory.js';
import type { BrandService } from './profiles.js';

/** GET /v1/brand: profiles, the brand of each workspace the caller can open, and what the plan allows. */
export class BrandOverviewService {
  constructor(
    private readonly d: BrandDeps,
    private readonly brand: BrandService,
    private readonly directory: BrandDirectoryService,
  ) {}

  get db(): Knex {
    return this.d.db;
  }

  async overview(principal: Principal): Promise<Record<string, unknown>> {
    const db = this.d.db;
    const org = await orgFacts(db, principal.orgId);
    const rows = await this.brand.profiles(db, principal.orgId);
    const profiles = [];
    for (const row of rows) profiles.push(await this.brand.out(db, row, org));
    const workspaces = [];
    for (const ws of await this.brand.visibleWorkspaces(principal))
      workspaces.push(await this.directory.workspaceBrand(db, ws, org));
    const has = (f: string) => this.d.planCatalog.hasFeature(org.plan, f);
    return {
      organization: { name: org.name, type: org.type, plan: org.plan },
      profiles,
      workspaces,
      allowances: {
        brand_profiles: has('brand_profiles') ? null : 1,
        custom_domains: has('custom_sending_domain'),
        white_label: has('white_label'),
        badge_removal_available: has('badge_removal'),
        badge_removal_active: org.badge_removal_addon,
      },
    };
  }
}
