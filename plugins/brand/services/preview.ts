import { cssFontStack } from './fonts.js';
import { escapeHtml as esc } from '../../../core/http/html.js';

/** What a brand looks like on customer-facing pages and emails. */
export interface BrandLook {
  name: string;
  logoUrl: string | null;
  color: string;
  fontFamily: string;
  theme: 'light' | 'dark';
  locale: 'en' | 'it';
  showBadge: boolean;
  websiteUrl: string | null;
}

/** The look of a workspace without a brand profile: its name as text on a neutral header, the badge unless removed. */
export function plainLook(
  ws: { name: string; client_name: string | null; locale: string },
  org: { badge_removal_addon: boolean },
): BrandLook {
  return {
    name: ws.client_name || ws.name,
    logoUrl: null,
    color: '#1f2328',
    fontFamily: 'System UI',
    theme: 'light',
    locale: ws.locale === 'it' ? 'it' : 'en',
    showBadge: !org.badge_removal_addon,
    websiteUrl: null,
  };
}

const TEXTS = {
  en: {
    title: 'Brand preview',
    button: 'Send',
    sample: 'This is how your customers see your brand on emails, the widget and status pages.',
    badge: 'Support by Patchwell',
  },
  it: {
    title: 'Anteprima del marchio',
    button: 'Invia',
    sample: 'Così i tuoi clienti vedono il tuo marchio nelle email, nel widget e nelle pagine di stato.',
    badge: 'Assistenza di Patchwell',
  },
} as const;

/** The brand's header: the logo, or the name as text when there is none. */
export function brandHeaderHtml(look: BrandLook): string {
  const mark = look.logoUrl
    ? `<img src="${esc(look.logoUrl)}" alt="${esc(look.name)}" style="max-height:40px;max-width:200px" data-testid="brand-logo">`
    : `<strong data-testid="brand-name">${esc(look.name)}</strong>`;
  return `<header data-testid="brand-header" style="background:${look.color};color:#ffffff;padding:12px 16px;font-family:${esc(cssFontStack(look.fontFamily))}">${mark}</header>`;
}

/** The engine badge (absent when the badge removal add-on hides it). */
export function badgeHtml(look: BrandLook): string {
  return look.showBadge
    ? `<p data-testid="engine-badge" style="font-size:12px;opacity:.7">${esc(TEXTS[look.locale].badge)}</p>`
    : '';
}

/** The preview page of a brand (BrandProfile.logo.preview_url). */
export function renderPreview(look: BrandLook): string {
  const t = TEXTS[look.locale];
  const dark = look.theme === 'dark';
  return `<!doctype html>
<html lang="${look.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${esc(t.title)} · ${esc(look.name)}</title></head>
<body style="margin:0;background:${dark ? '#111827' : '#f9fafb'};color:${dark ? '#f9fafb' : '#111827'};font-family:${esc(cssFontStack(look.fontFamily))}">
${brandHeaderHtml(look)}
<main style="padding:16px"><p>${esc(t.sample)}</p><p><span role="button" style="display:inline-block;background:${look.color};color:#ffffff;padding:8px 16px;border-radius:6px">${esc(t.button)}</span></p>${badgeHtml(look)}</main>
</body></html>`;
}
