import type { Knex } from 'knex';
import type { BrandProfileRow } from '../models.js';
import { orgFacts, type BrandDeps, type BrandWorkspace, type OrgFacts } from './deps.js';
import { cssFontStack } from './fonts.js';
import { plainLook } from './preview.js';
import type { BrandService } from './profiles.js';

/** How one mail is branded (the mail plugin renders it: header, font, badge, sender). */
export interface MailBrandOut {
  /** Brand name shown as text when there is no logo, and the logo's alt text. */
  name: string;
  /** Absolute https/http URL of the logo; null shows the name as text. */
  logoUrl: string | null;
  /** Header background behind white text (already WCAG AA adjusted). */
  color: string;
  /** CSS font-family stack. */
  fontStack: string;
  /** Whether the engine badge shows (false only with the badge removal add-on). */
  showBadge: boolean;
  /** Verified sender of the brand (a verified sending domain), used when the caller gives no `from`. */
  from: { address: string; name?: string } | null;
  /** Display name at the default address when there is no verified sender; null keeps the default name. */
  fromName: string | null;
}

/**
 * Container key `mailBranding`: the brand a customer-facing mail of a workspace carries (the mail
 * plugin asks at each enqueue, in the caller's transaction). The workspace is given, or found from
 * the ticket the mail is about. Its effective profile gives the look (logo or name, accessible
 * color, font, badge unless removed by the add-on) and the sender: the inbox's verified custom or
 * white-label sender, else the profile's `sender_email` when it sits on a verified sending domain
 * of the brand (plan with custom domains), else the brand's name at the service's address.
 * Without a profile: the workspace's name as text on a neutral header, the badge, the default sender.
 */
export class MailBrandingService {
  constructor(
    private readonly d: BrandDeps,
    private readonly brand: BrandService,
  ) {}

  async forMail(
    trx: Knex,
    ref: { orgId: string; workspaceId?: string; ticketRef?: string },
  ): Promise<MailBrandOut | null> {
    const ws = await this.workspace(trx, ref);
    if (!ws) return null;
    const org = await orgFacts(trx, ref.orgId);
    const profile = await this.brand.effectiveProfile(trx, ref.orgId, ws.brand_profile_id);
    const look = profile ? this.brand.lookOf(profile, org) : plainLook(ws, org);
    return {
      name: look.name,
      logoUrl: look.logoUrl,
      color: look.color,
      fontStack: cssFontStack(look.fontFamily),
      showBadge: look.showBadge,
      from: profile ? await this.sender(trx, ws, profile, org) : null,
      fromName: profile ? senderName(profile) : null,
    };
  }

  private async workspace(
    trx: Knex,
    ref: { orgId: string; workspaceId?: string; ticketRef?: string },
  ): Promise<BrandWorkspace | null> {
    let id = ref.workspaceId ?? null;
    if (!id && ref.ticketRef) {
      const ticket = (await trx('tickets')
        .select('workspace_id')
        .where({ org_id: ref.orgId, id: ref.ticketRef })
        .first()) as { workspace_id: string } | undefined;
      id = ticket?.workspace_id ?? null;
    }
    if (!id) return null;
    try {
      return await this.d.workspaces.get(ref.orgId, id, trx);
    } catch {
      return null; // not this organization's workspace: the mail keeps the plain look
    }
  }

  private async sender(
    trx: Knex,
    ws: BrandWorkspace,
    profile: BrandProfileRow,
    org: OrgFacts,
  ): Promise<{ address: string; name?: string } | null> {
    if (this.d.sending) {
      const sending = await this.d.sending.sendingOf(trx, ws);
      if ((sending.kind === 'custom' || sending.kind === 'white_label') && sending.sender) return sending.sender;
    }
    const address = profile.sender_email?.trim().toLowerCase();
    if (!address || !this.d.emailDomains || !this.d.planCatalog.hasFeature(org.plan, 'custom_sending_domain'))
      return null;
    const domain = address.slice(address.lastIndexOf('@') + 1);
    const domains = await this.d.emailDomains.ofBrand(trx, org.id, profile.id);
    const verified = domains.some((x) => x.purpose === 'sending' && x.verified_at && x.name.toLowerCase() === domain);
    return verified ? { address, name: senderName(profile) } : null;
  }
}

const senderName = (profile: BrandProfileRow) => profile.sender_name?.trim() || profile.name;
