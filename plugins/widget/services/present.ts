import type { Knex } from 'knex';
import { WIDGET_TEXT_KEYS } from '../../../core/kernel/widget-texts.js';
import { BADGE_TEXT, DEFAULT_TEXTS, localeOf, type WidgetLocale, type WidgetTexts } from '../texts.js';
import type { BrandPort, WidgetWorkspace } from './deps.js';
import type { SettingsRow } from './store.js';

export interface WidgetBrand {
  name: string;
  logo_url: string | null;
  primary_color: string;
  font_family: string;
  theme: 'light' | 'dark';
  show_badge: boolean;
  badge_text: string | null;
  website_url: string | null;
}

export const captureOf = (s: SettingsRow) => ({
  console: s.capture_console,
  network: s.capture_network,
  screenshot: s.capture_screenshot,
  max_entries: s.max_entries,
});
export const passiveOf = (s: SettingsRow) => ({ enabled: s.passive_enabled });

/**
 * What the script shows for a workspace: its effective brand profile (its own, else the
 * organization's default) with the engine badge only where the brand still shows it (white
 * label respected), and the texts in the chosen language: the profile's own widget_texts when
 * they are written in that language, the built-in ones for every key it leaves out.
 */
export async function presentConfig(
  db: Knex,
  brand: BrandPort | null,
  ws: WidgetWorkspace,
  settings: SettingsRow,
  requested: string | null | undefined,
): Promise<Record<string, unknown>> {
  const org: { badge_removal_addon: boolean } | undefined = await db('organizations')
    .where({ id: ws.org_id })
    .first('badge_removal_addon');
  const addon = !!org?.badge_removal_addon;
  const profile = brand ? await brand.effectiveProfile(db, ws.org_id, ws.brand_profile_id) : undefined;
  const look = profile && brand ? brand.lookOf(profile, { badge_removal_addon: addon }) : null;
  const locale: WidgetLocale = localeOf(requested) ?? look?.locale ?? localeOf(ws.locale) ?? 'en';
  const texts: WidgetTexts = { ...DEFAULT_TEXTS[locale] };
  if (profile && profile.locale === locale) {
    for (const k of WIDGET_TEXT_KEYS) {
      const v = profile.widget_texts?.[k];
      if (typeof v === 'string' && v.trim()) texts[k] = v;
    }
  }
  const showBadge = look ? look.showBadge : !addon;
  const widgetBrand: WidgetBrand = {
    name: look?.name ?? (ws.client_name || ws.name),
    logo_url: look?.logoUrl ?? null,
    primary_color: look?.color ?? '#1f2328',
    font_family: look?.fontFamily ?? 'System UI',
    theme: look?.theme ?? 'light',
    show_badge: showBadge,
    badge_text: showBadge ? BADGE_TEXT[locale] : null,
    website_url: look?.websiteUrl ?? null,
  };
  return {
    public_key: ws.widget_public_key,
    locale,
    brand: widgetBrand,
    texts,
    capture: captureOf(settings),
    passive_collection: passiveOf(settings),
  };
}
