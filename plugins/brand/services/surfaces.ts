import { orgFacts, type BrandDeps } from './deps.js';
import { badgeHtml, brandHeaderHtml, plainLook, type BrandLook } from './preview.js';
import type { BrandService } from './profiles.js';

/** What the tickets plugin's status page takes (its StatusPageBrand). */
export interface StatusPageBrand {
  productName?: string;
  headerHtml: string;
  footerHtml: string;
  imgSources?: string[];
}

/**
 * The brand on customer-facing pages served by the tickets plugin (container key
 * `statusPageBranding`): the status page shows the workspace's effective profile (logo or name,
 * color, font, the engine badge unless removed). On a verified status domain only that brand's
 * tickets are served: a link of another brand answers 404 there, so a client's domain never
 * shows someone else's page.
 */
export class StatusPageBrandingService {
  constructor(
    private readonly d: BrandDeps,
    private readonly brand: BrandService,
  ) {}

  async forStatusPage(input: {
    host: string;
    orgId: string;
    workspaceId: string;
  }): Promise<{ serve: boolean; brand: StatusPageBrand | null }> {
    const db = this.d.db;
    const ws = await this.d.workspaces.get(input.orgId, input.workspaceId);
    const profile = await this.brand.effectiveProfile(db, input.orgId, ws.brand_profile_id);
    const byHost = await this.brand.byVerifiedStatusHost(db, input.host);
    if (byHost && byHost.id !== profile?.id) return { serve: false, brand: null };
    const org = await orgFacts(db, input.orgId);
    if (!profile) {
      // No brand: the workspace's name stays the product; the engine badge still shows unless removed.
      return { serve: true, brand: { headerHtml: '', footerHtml: footer(plainLook(ws, org)) } };
    }
    const look = this.brand.lookOf(profile, org);
    // An uploaded logo is served by this service under any host (the status domain is a CNAME to it), so a relative URL stays 'self'.
    const logoUrl = profile.logo_source === 'upload' && look.logoUrl ? new URL(look.logoUrl).pathname : look.logoUrl;
    const imgSources = profile.logo_source === 'url' && look.logoUrl ? [new URL(look.logoUrl).origin] : [];
    return {
      serve: true,
      brand: {
        productName: ws.client_name || profile.name,
        headerHtml: `${brandHeaderHtml({ ...look, logoUrl })}\n`,
        footerHtml: footer(look),
        imgSources,
      },
    };
  }
}

function footer(look: BrandLook): string {
  const badge = badgeHtml(look);
  return badge ? `<footer style="text-align:center">${badge}</footer>\n` : '';
}
