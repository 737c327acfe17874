import { tenantModel } from '../../core/data/model.js';
import type { WidgetTextKey } from '../../core/kernel/widget-texts.js';
import type { LogoContentType } from './services/image.js';

export type StatusDomainError =
  'cname_missing' | 'cname_mismatch' | 'txt_missing' | 'txt_mismatch' | 'dns_error' | 'domain_taken';

export type WidgetTexts = Partial<Record<WidgetTextKey, string>>;

/** A brand profile (table brand_profiles, migration 0900). */
export class BrandProfileRow extends tenantModel({ table: 'brand_profiles', idPrefix: 'bp', json: ['widget_texts'] }) {
  declare name: string;
  declare is_default: boolean;
  declare primary_color: string;
  declare font_family: string;
  declare locale: 'en' | 'it';
  declare theme: 'light' | 'dark';
  declare sender_name: string | null;
  declare sender_email: string | null;
  declare website_url: string | null;
  declare show_badge: boolean;
  declare widget_texts: WidgetTexts;
  declare logo_source: 'upload' | 'url' | null;
  declare logo_url: string | null;
  declare logo_data: Buffer | null;
  declare logo_content_type: LogoContentType | null;
  declare logo_width: number | null;
  declare logo_height: number | null;
  declare logo_size_bytes: number | null;
  declare logo_sha256: string | null;
  declare logo_uploaded_at: Date | null;
  declare status_domain: string | null;
  declare status_txt_token: string | null;
  declare status_verified: boolean;
  declare status_verified_at: Date | null;
  declare status_cname_ok: boolean;
  declare status_txt_ok: boolean;
  declare status_last_checked_at: Date | null;
  declare status_last_error: StatusDomainError | null;
  declare status_failing_since: Date | null;
  declare updated_at: Date;
}

/** Every column but the logo bytes (lists and answers never need them). */
export const PROFILE_COLUMNS = [
  'id',
  'org_id',
  'name',
  'is_default',
  'primary_color',
  'font_family',
  'locale',
  'theme',
  'sender_name',
  'sender_email',
  'website_url',
  'show_badge',
  'widget_texts',
  'logo_source',
  'logo_url',
  'logo_content_type',
  'logo_width',
  'logo_height',
  'logo_size_bytes',
  'logo_sha256',
  'logo_uploaded_at',
  'status_domain',
  'status_txt_token',
  'status_verified',
  'status_verified_at',
  'status_cname_ok',
  'status_txt_ok',
  'status_last_checked_at',
  'status_last_error',
  'status_failing_since',
  'created_at',
  'updated_at',
].map((c) => `brand_profiles.${c}`);
