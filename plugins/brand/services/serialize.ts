import { dnsRecordOut, type DnsRecord } from '../../../core/contracts/index.js';
import type { BrandProfileRow } from '../models.js';
import { accessiblePrimary } from './color.js';
import type { EmailDomainView } from './deps.js';
import { statusRecords } from './status-domain.js';
import { iso } from '../../../core/http/times.js';

const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

export interface ProfileContext {
  baseUrl: string;
  cnameTarget: string;
  txtLabel: string;
  /** Whether the organization has the badge removal add-on (without it the badge always shows). */
  badgeRemoval: boolean;
  emailDomains: EmailDomainView[];
}

/** Public URL of an uploaded logo; the content hash makes it change with the bytes (long caching). */
export function logoAssetUrl(
  baseUrl: string,
  row: Pick<BrandProfileRow, 'id' | 'logo_sha256' | 'logo_content_type'>,
): string {
  return `${baseUrl}/brand-assets/${row.id}/logo-${(row.logo_sha256 ?? '').slice(0, 16)}.${EXT[row.logo_content_type ?? ''] ?? 'bin'}`;
}

/** The logo URL surfaces use: the uploaded asset, the linked URL, or null (surfaces show the name as text). */
export function logoUrlOf(baseUrl: string, row: BrandProfileRow): string | null {
  if (row.logo_source === 'upload') return logoAssetUrl(baseUrl, row);
  if (row.logo_source === 'url') return row.logo_url;
  return null;
}

/** Whether the engine badge shows on this brand's surfaces: always, unless the add-on is active and the profile hides it. */
export const badgeShows = (row: Pick<BrandProfileRow, 'show_badge'>, badgeRemoval: boolean): boolean =>
  row.show_badge || !badgeRemoval;

function statusDnsRecords(row: BrandProfileRow, ctx: ProfileContext): DnsRecord[] {
  if (!row.status_domain || !row.status_txt_token) return [];
  const r = statusRecords(row.status_domain, row.status_txt_token, {
    cnameTarget: ctx.cnameTarget,
    txtLabel: ctx.txtLabel,
  });
  const state = (ok: boolean) =>
    ok
      ? 'verified'
      : row.status_last_error === 'dns_error'
        ? 'temporary_failure'
        : row.status_last_checked_at
          ? 'failed'
          : 'pending';
  return [
    {
      purpose: 'status_page',
      record: 'status_cname',
      type: 'CNAME',
      name: r.cname.name,
      value: r.cname.value,
      ttl: 3600,
      status: state(row.status_cname_ok),
    },
    {
      purpose: 'status_page',
      record: 'status_txt',
      type: 'TXT',
      name: r.txt.name,
      value: r.txt.value,
      ttl: 3600,
      status: state(row.status_txt_ok),
    },
  ];
}

/** BrandProfile, exactly as the spec shapes it (docs/brand.md says where each field comes from). */
export function profileOut(row: BrandProfileRow, ctx: ProfileContext): Record<string, unknown> {
  const effective = accessiblePrimary(row.primary_color);
  const sending = ctx.emailDomains.find((d) => d.purpose === 'sending') ?? null;
  const receiving = ctx.emailDomains.find((d) => d.purpose === 'receiving') ?? null;
  const emailRecords = ctx.emailDomains.flatMap((d) => d.records.map(dnsRecordOut));
  const statusRecs = statusDnsRecords(row, ctx);
  const records =
    row.status_domain && row.status_txt_token
      ? statusRecords(row.status_domain, row.status_txt_token, { cnameTarget: ctx.cnameTarget, txtLabel: ctx.txtLabel })
      : null;
  return {
    id: row.id,
    org_id: row.org_id,
    name: row.name,
    is_default: row.is_default,
    logo_url: logoUrlOf(ctx.baseUrl, row),
    primary_color: row.primary_color,
    primary_color_effective: effective.color,
    color_adjusted: effective.adjusted,
    font_family: row.font_family,
    locale: row.locale,
    sender_name: row.sender_name ?? null,
    sender_email: row.sender_email ?? null,
    custom_domain: sending?.name ?? null,
    status_domain: row.status_domain ?? null,
    inbound_domain: receiving?.name ?? null,
    show_badge: badgeShows(row, ctx.badgeRemoval),
    widget_texts: row.widget_texts ?? {},
    website_url: row.website_url ?? null,
    domain_dns_records: [...emailRecords, ...statusRecs],
    domain_verified_at: iso(sending?.verified_at),
    inbound_verified_at: iso(receiving?.verified_at),
    status_domain_verified_at: row.status_verified ? iso(row.status_verified_at) : null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    theme: row.theme,
    logo: row.logo_source
      ? {
          source: row.logo_source,
          url: logoUrlOf(ctx.baseUrl, row),
          content_type: row.logo_content_type ?? null,
          width: row.logo_width ?? null,
          height: row.logo_height ?? null,
          size_bytes: row.logo_size_bytes ?? null,
          uploaded_at: iso(row.logo_uploaded_at),
          preview_url: `${ctx.baseUrl}/brand-assets/${row.id}/preview`,
        }
      : null,
    status_domain_state: records
      ? {
          domain: row.status_domain,
          verified: row.status_verified,
          verified_at: row.status_verified ? iso(row.status_verified_at) : null,
          cname: records.cname,
          txt: records.txt,
          cname_ok: row.status_cname_ok,
          txt_ok: row.status_txt_ok,
          last_checked_at: iso(row.status_last_checked_at),
          last_error: row.status_last_error ?? null,
          failing_since: iso(row.status_failing_since),
        }
      : null,
    email_dns_records: emailRecords,
  };
}
