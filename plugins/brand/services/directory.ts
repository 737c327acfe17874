import type { Knex } from 'knex';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { BrandProfileRow } from '../models.js';
import { baseUrl, orgFacts, type BrandDeps, type BrandWorkspace, type OrgFacts } from './deps.js';
import type { BrandService } from './profiles.js';
import { badgeShows } from './serialize.js';

/**
 * What a white-labelled client workspace still lacks (WorkspaceBrand.white_label_missing, the
 * Channel's sending.missing and the guard's details.missing). Values, in the order shown:
 * - `white_label_plan`: the organization's plan has no white label;
 * - `brand_profile`: the workspace shows no brand profile (none assigned and no default);
 * - `status_domain`: its profile has no verified status domain (status pages would show the service's host);
 * - `badge_removal`: the engine badge still shows (no add-on, or the profile shows it);
 * and, from the inbox's sending check: `sending_domain`, `domain_verification`, `sender_email`, `plan`.
 */
export const WHITE_LABEL_MISSING = [
  'white_label_plan',
  'brand_profile',
  'status_domain',
  'badge_removal',
  'sending_domain',
  'domain_verification',
  'sender_email',
  'plan',
] as const;

/** Whether a workspace is an agency's client workspace (answers under white label). */
export const isClientWorkspace = (org: Pick<OrgFacts, 'type'>, ws: Pick<BrandWorkspace, 'client_name'>): boolean =>
  org.type === 'agency' && !!ws.client_name?.trim();

/** The guard the tickets plugin calls before a draft leaves (its `whiteLabelGuard`). */
type Guard = Cradle['whiteLabelGuard'];

/**
 * The brand seams other plugins read: the inbox's `brandDirectory` (whose domains a workspace
 * uses, whether it is white-labelled) and the tickets' `whiteLabelGuard`.
 */
export class BrandDirectoryService {
  constructor(
    private readonly d: BrandDeps,
    private readonly brand: BrandService,
  ) {}

  /** Inbox seam: the workspace's email domains belong to its effective profile, or to the workspace when it shows none. */
  async keyFor(
    trx: Knex,
    ws: Pick<BrandWorkspace, 'id' | 'org_id' | 'brand_profile_id'>,
  ): Promise<{ brandProfileId: string; scope: 'workspace' | 'organization' }> {
    const profile = await this.brand.effectiveProfile(trx, ws.org_id, ws.brand_profile_id);
    return profile
      ? { brandProfileId: profile.id, scope: 'organization' }
      : { brandProfileId: ws.id, scope: 'workspace' };
  }

  /** Inbox seam: white label applies to an agency's client workspaces; `missing` is the brand side of readiness. */
  async whiteLabel(
    trx: Knex,
    ws: Pick<BrandWorkspace, 'org_id' | 'brand_profile_id' | 'client_name'>,
  ): Promise<{ whiteLabel: boolean; missing: string[] }> {
    const org = await orgFacts(trx, ws.org_id);
    if (!isClientWorkspace(org, ws)) return { whiteLabel: false, missing: [] };
    const profile = await this.brand.effectiveProfile(trx, ws.org_id, ws.brand_profile_id);
    return { whiteLabel: true, missing: this.brandMissing(org, profile) };
  }

  private brandMissing(org: OrgFacts, profile: BrandProfileRow | undefined): string[] {
    const missing: string[] = [];
    if (!this.d.planCatalog.hasFeature(org.plan, 'white_label')) missing.push('white_label_plan');
    if (!profile) missing.push('brand_profile');
    if (!profile?.status_verified) missing.push('status_domain');
    if (!profile || badgeShows(profile, org.badge_removal_addon)) missing.push('badge_removal');
    return missing;
  }

  /** Everything a client workspace lacks for white label: the brand side plus the inbox's sending side. */
  async whiteLabelMissing(db: Knex, ws: BrandWorkspace): Promise<string[]> {
    const wl = await this.whiteLabel(db, ws);
    if (!wl.whiteLabel) return [];
    // sendingOf asks this directory again and merges its own domain checks into `missing`.
    const sending = this.d.sending ? await this.d.sending.sendingOf(db, ws) : { missing: ['sending_domain'] };
    const all = new Set([...wl.missing, ...sending.missing]);
    return (WHITE_LABEL_MISSING as readonly string[])
      .filter((m) => all.has(m))
      .concat([...all].filter((m) => !(WHITE_LABEL_MISSING as readonly string[]).includes(m)));
  }

  /** WorkspaceBrand of the spec. */
  async workspaceBrand(db: Knex, ws: BrandWorkspace, org?: OrgFacts): Promise<Record<string, unknown>> {
    const facts = org ?? (await orgFacts(db, ws.org_id));
    const profile = await this.brand.effectiveProfile(db, ws.org_id, ws.brand_profile_id);
    return {
      id: ws.id,
      name: ws.name,
      client_name: ws.client_name ?? null,
      slug: ws.slug,
      brand_profile_id: ws.brand_profile_id ?? null,
      effective_profile_id: profile?.id ?? null,
      show_badge: profile ? badgeShows(profile, facts.badge_removal_addon) : true,
      status_base_url: this.statusBaseUrl(profile),
      changelog_enabled: !!ws.changelog_enabled,
      white_label_missing: await this.whiteLabelMissing(db, ws),
    };
  }

  /** Where the workspace's status pages live: its verified status domain, else the service's host. */
  statusBaseUrl(profile: Pick<BrandProfileRow, 'status_verified' | 'status_domain'> | undefined): string {
    if (profile?.status_verified && profile.status_domain) return `https://${profile.status_domain}/status`;
    return `${baseUrl(this.d.config)}/status`;
  }

  /**
   * The tickets plugin's `whiteLabelGuard`: a draft from an agency's client workspace that is not
   * white-label ready is refused (409 white_label_not_ready, details.missing); every other draft
   * goes through the guard registered before this one (the inbox's sending choice).
   */
  guard(inner: Guard): Guard {
    return {
      check: async (input) => {
        const ws = await this.d.workspaces.get(input.orgId, input.workspace.id, input.trx);
        // Empty for workspaces that are not white-labelled, so only a client workspace can be refused.
        const missing = await this.whiteLabelMissing(input.trx, ws);
        if (missing.length > 0) {
          return {
            allowed: false,
            code: 'white_label_not_ready',
            message: `This client workspace is not ready to answer under your white label; missing: ${missing.join(', ')}`,
            details: {
              workspace_id: ws.id,
              missing,
              message_it: `Questo spazio di lavoro del cliente non è pronto per rispondere con il tuo marchio; manca: ${missing.join(', ')}`,
            },
          };
        }
        return inner.check(input);
      },
    };
  }
}
