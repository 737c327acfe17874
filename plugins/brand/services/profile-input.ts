import { httpError } from '../../../core/http/errors.js';
import type { BrandProfileRow, WidgetTexts } from '../models.js';
import { normalizeHex } from './color.js';
import type { OrgFacts } from './deps.js';

// The write shape of a brand profile and how it becomes column values (create and update).

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

/** The fields whose changes are audited. */
export const AUDITED = [
  'name',
  'is_default',
  'primary_color',
  'sender_name',
  'sender_email',
  'font_family',
  'locale',
  'website_url',
  'logo_url',
  'show_badge',
  'widget_texts',
  'theme',
];

const blankToNull = (v: string | null | undefined): string | null | undefined =>
  v === undefined ? undefined : v === null || v.trim() === '' ? null : v.trim();

/** The audited fields of a row, for diffFields. */
export function snapshot(row: BrandProfileRow): Record<string, unknown> {
  return Object.fromEntries(AUDITED.map((k) => [k, (row as unknown as Record<string, unknown>)[k] ?? null]));
}

/** Normalized column values of the write shape (undefined keys are left out). */
export function writeValues(input: ProfileInput): Record<string, unknown> &
  Partial<
    Pick<BrandProfileRow, 'primary_color' | 'font_family' | 'locale' | 'theme' | 'show_badge' | 'widget_texts'>
  > & {
    sender_name?: string | null;
    sender_email?: string | null;
    website_url?: string | null;
    logo_url?: string | null;
  } {
  const out: Record<string, unknown> = {};
  if (input.primary_color !== undefined) out.primary_color = normalizeHex(input.primary_color);
  if (input.font_family !== undefined) out.font_family = input.font_family;
  if (input.locale !== undefined) out.locale = input.locale;
  if (input.theme !== undefined) out.theme = input.theme;
  if (input.show_badge !== undefined) out.show_badge = input.show_badge;
  if (input.widget_texts !== undefined)
    out.widget_texts = Object.fromEntries(
      Object.entries(input.widget_texts)
        .filter(([, v]) => typeof v === 'string' && v.trim() !== '')
        .map(([k, v]) => [k, v.trim()]),
    );
  for (const k of ['sender_name', 'sender_email', 'website_url', 'logo_url'] as const) {
    const v = blankToNull(input[k]);
    if (v !== undefined) out[k] = k === 'sender_email' && v ? v.toLowerCase() : v;
  }
  return out;
}

/** 402 when the engine badge is hidden without the badge removal add-on. */
export function assertBadge(input: ProfileInput, org: OrgFacts): void {
  if (input.show_badge === false && !org.badge_removal_addon) {
    throw httpError(
      402,
      'plan_limit_reached',
      'Hiding the engine badge needs the badge removal add-on (PUT /v1/billing/addons)',
      { reason: 'badge_removal_addon' },
    );
  }
}
