import Joi from 'joi';
import { dnsRecordSchemaKeys } from '../../core/contracts/index.js';
import { WIDGET_TEXT_KEYS } from '../../core/kernel/widget-texts.js';
import { WHITE_LABEL_MISSING } from './services/directory.js';
import { FONT_FAMILIES } from './services/fonts.js';
import { LOGO_CONTENT_TYPES } from './services/image.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

const str = Joi.string().allow(null);
const LOCALES = ['en', 'it'] as const;
const THEMES = ['light', 'dark'] as const;
const STATUS_ERRORS = [
  'cname_missing',
  'cname_mismatch',
  'txt_missing',
  'txt_mismatch',
  'dns_error',
  'domain_taken',
] as const;

const httpUrl = () =>
  Joi.string()
    .trim()
    .uri({ scheme: ['https', 'http'] })
    .max(2000);
const color = () =>
  Joi.string()
    .trim()
    .pattern(/^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'hex color')
    .description('`#rrggbb` (or `#rgb`)');

// ---- write shape ---------------------------------------------------------------------------

const widgetTexts = Joi.object(
  Object.fromEntries(
    WIDGET_TEXT_KEYS.map((k) => [
      k,
      Joi.string()
        .max(k === 'technical_consent' || k === 'screenshot_consent' ? 1000 : 300)
        .allow(''),
    ]),
  ),
).description("Texts of the widget form; an empty or absent key uses the built-in text in the profile's locale");

const writeKeys = {
  is_default: Joi.boolean(),
  primary_color: color(),
  sender_name: Joi.string().trim().max(100).allow(null, ''),
  sender_email: Joi.string()
    .trim()
    .email({ tlds: { allow: false } })
    .max(254)
    .allow(null, ''),
  font_family: Joi.string()
    .valid(...FONT_FAMILIES)
    .description(`One of 48 families: ${FONT_FAMILIES.join(', ')}`),
  locale: Joi.string().valid(...LOCALES),
  website_url: httpUrl().allow(null, ''),
  logo_url: Joi.string()
    .trim()
    .uri({ scheme: ['https'] })
    .max(2000)
    .allow(null, '')
    .description('A logo hosted elsewhere (https); an upload replaces it'),
  show_badge: Joi.boolean().description('false hides the engine badge; needs the badge removal add-on'),
  widget_texts: widgetTexts,
  theme: Joi.string().valid(...THEMES),
};

export const CreateProfileInput = Joi.object({
  name: Joi.string().trim().min(1).max(100).required(),
  ...writeKeys,
}).required();
export const UpdateProfileInput = Joi.object({ name: Joi.string().trim().min(1).max(100), ...writeKeys }).required();

export const LogoInput = Joi.object({
  content_type: Joi.string()
    .valid(...LOGO_CONTENT_TYPES)
    .required(),
  data_base64: Joi.string().required().description('The image bytes, base64; at most 512 KiB decoded'),
}).required();

export const StatusDomainInput = Joi.object({
  domain: Joi.string().trim().max(253).required().description('e.g. status.example.com'),
}).required();

export const AssignInput = Joi.object({
  brand_profile_id: Joi.string()
    .max(64)
    .allow(null)
    .required()
    .description("null selects the organization's default profile"),
}).required();

// ---- answers -------------------------------------------------------------------------------

export const DnsRecordSchema = Joi.object(dnsRecordSchemaKeys).id('DnsRecord');

const statusRecord = Joi.object({
  type: Joi.string().valid('CNAME', 'TXT').required(),
  name: Joi.string().required(),
  value: Joi.string().required(),
});

export const BrandProfileSchema = Joi.object({
  id: Joi.string().required(),
  org_id: Joi.string().required(),
  name: Joi.string().required(),
  is_default: Joi.boolean().required(),
  logo_url: Joi.string().uri().allow(null).required(),
  primary_color: Joi.string().required(),
  primary_color_effective: Joi.string()
    .required()
    .description('The color in use: primary_color darkened until white text on it meets WCAG AA (4.5:1)'),
  color_adjusted: Joi.boolean().required(),
  font_family: Joi.string()
    .valid(...FONT_FAMILIES)
    .required(),
  locale: Joi.string()
    .valid(...LOCALES)
    .required(),
  sender_name: str.required(),
  sender_email: Joi.string()
    .email({ tlds: { allow: false } })
    .allow(null)
    .required(),
  custom_domain: str.required().description("The brand's sending domain (domains section)"),
  status_domain: str.required(),
  inbound_domain: str.required().description("The brand's receiving domain (domains section)"),
  show_badge: Joi.boolean()
    .required()
    .description(
      'Whether the engine badge shows: true unless the badge removal add-on is active and the profile hides it',
    ),
  widget_texts: widgetTexts.required(),
  website_url: Joi.string().uri().allow(null).required(),
  domain_dns_records: Joi.array()
    .items(DnsRecordSchema)
    .required()
    .description('Every record of the brand: email domains and status page'),
  domain_verified_at: nullableTime(),
  inbound_verified_at: nullableTime(),
  status_domain_verified_at: nullableTime(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
  theme: Joi.string()
    .valid(...THEMES)
    .required(),
  logo: Joi.object({
    source: Joi.string().valid('upload', 'url').required(),
    url: Joi.string().uri().allow(null).required(),
    content_type: Joi.string()
      .valid(...LOGO_CONTENT_TYPES)
      .allow(null)
      .required(),
    width: Joi.number().integer().allow(null).required(),
    height: Joi.number().integer().allow(null).required(),
    size_bytes: Joi.number().integer().allow(null).required(),
    uploaded_at: nullableTime(),
    preview_url: Joi.string().uri().required(),
  })
    .allow(null)
    .required(),
  status_domain_state: Joi.object({
    domain: Joi.string().required(),
    verified: Joi.boolean().required(),
    verified_at: nullableTime(),
    cname: statusRecord.required(),
    txt: statusRecord.required(),
    cname_ok: Joi.boolean().required(),
    txt_ok: Joi.boolean().required(),
    last_checked_at: nullableTime(),
    last_error: Joi.string()
      .valid(...STATUS_ERRORS)
      .allow(null)
      .required(),
    failing_since: nullableTime(),
  })
    .allow(null)
    .required(),
  email_dns_records: Joi.array().items(DnsRecordSchema).required(),
}).id('BrandProfile');

export const WorkspaceBrandSchema = Joi.object({
  id: Joi.string().required(),
  name: Joi.string().required(),
  client_name: str.required(),
  slug: Joi.string().required(),
  brand_profile_id: str.required(),
  effective_profile_id: str.required(),
  show_badge: Joi.boolean().required(),
  status_base_url: Joi.string().uri().required(),
  changelog_enabled: Joi.boolean().required(),
  white_label_missing: Joi.array()
    .items(Joi.string())
    .required()
    .description(`Values: ${WHITE_LABEL_MISSING.join(', ')}`),
}).id('WorkspaceBrand');

export const BrandOverviewSchema = Joi.object({
  organization: Joi.object({
    name: Joi.string().required(),
    type: Joi.string().valid('direct', 'agency').required(),
    plan: Joi.string().required(),
  }).required(),
  profiles: Joi.array().items(BrandProfileSchema).required(),
  workspaces: Joi.array().items(WorkspaceBrandSchema).required(),
  allowances: Joi.object({
    brand_profiles: Joi.number()
      .integer()
      .allow(null)
      .required()
      .description('How many profiles the plan allows; null: no limit'),
    custom_domains: Joi.boolean().required(),
    white_label: Joi.boolean().required(),
    badge_removal_available: Joi.boolean().required(),
    badge_removal_active: Joi.boolean().required(),
  }).required(),
}).id('BrandOverview');

export const VerifyAnswerSchema = Joi.object({ profile: BrandProfileSchema.required() }).id(
  'BrandStatusDomainVerification',
);
