/**
 * Branded mail: customer-facing mail of a workspace renders with the workspace's brand (header
 * with the logo or the name as text on the brand's accessible color, the brand's font, the engine
 * badge unless removed) and leaves from the brand's sender. The brand is looked up through the
 * container key `mailBranding` (the brand plugin fills it); without it mail keeps the plain look.
 */
import type { Cradle } from '../../../core/kernel/cradle.js';
import { escapeHtml as esc } from '../../../core/http/html.js';
import type { MailLocale } from './templates.js';

/** Container key `mailBranding` (the brand plugin's): the brand of a mail's workspace, or null (no workspace found). */
export type MailBrandingPort = Pick<Cradle['mailBranding'], 'forMail'>;
/** How one mail is branded: what the brand plugin's `mailBranding.forMail` answers. */
export type MailBrand = NonNullable<Awaited<ReturnType<MailBrandingPort['forMail']>>>;
/** Which workspace a mail belongs to: given, or the workspace of the ticket `ticketRef` names. */
export type MailBrandRef = Parameters<MailBrandingPort['forMail']>[1];

export const BADGE_TEXT: Record<MailLocale, string> = { en: 'Support by Patchwell', it: 'Assistenza di Patchwell' };

const COLOR = /^#[0-9a-f]{6}$/i;

/** The brand's header: the logo, or the name as text. */
export function brandHeader(brand: MailBrand): string {
  const color = COLOR.test(brand.color) ? brand.color : '#1f2328';
  const mark =
    brand.logoUrl && /^https?:\/\//i.test(brand.logoUrl)
      ? `<img src="${esc(brand.logoUrl)}" alt="${esc(brand.name)}" style="max-height:40px;max-width:200px;border:0" data-testid="brand-logo">`
      : `<strong data-testid="brand-name" style="font-size:18px">${esc(brand.name)}</strong>`;
  return `<div data-testid="brand-header" style="background:${color};color:#ffffff;padding:14px 20px;font-family:${esc(brand.fontStack)}">${mark}</div>`;
}

/** The engine badge, or nothing when removed. */
export function brandFooter(brand: MailBrand, locale: MailLocale): string {
  return brand.showBadge
    ? `<p data-testid="engine-badge" style="font-size:12px;color:#6b7280;text-align:center;margin:16px 0">${esc(BADGE_TEXT[locale])}</p>`
    : '';
}

const HEADER_SLOT = '<!--brand:header-->';
const FOOTER_SLOT = '<!--brand:footer-->';

/**
 * Brands an HTML part. A template may place `<!--brand:header-->` and `<!--brand:footer-->`
 * itself; otherwise the header goes right after `<body …>` (or first) and the footer before
 * `</body>` (or last). Without a brand the slots are removed.
 */
export function brandHtml(html: string, brand: MailBrand | null, locale: MailLocale): string {
  if (!brand) return html.split(HEADER_SLOT).join('').split(FOOTER_SLOT).join('');
  const header = brandHeader(brand);
  const footer = brandFooter(brand, locale);
  let out = html;
  if (out.includes(HEADER_SLOT)) out = out.split(HEADER_SLOT).join(header);
  else {
    const body = /<body[^>]*>/i.exec(out);
    out = body
      ? `${out.slice(0, body.index + body[0].length)}\n${header}${out.slice(body.index + body[0].length)}`
      : `${header}\n${out}`;
  }
  if (out.includes(FOOTER_SLOT)) out = out.split(FOOTER_SLOT).join(footer);
  else if (footer) {
    const end = out.toLowerCase().lastIndexOf('</body>');
    out = end >= 0 ? `${out.slice(0, end)}${footer}\n${out.slice(end)}` : `${out}\n${footer}`;
  }
  // The body text in the brand's font (the generated HTML sets a system stack on <body>).
  return out.replace(
    /(<body[^>]*style="[^"]*?)font-family:[^;"]*(;?)/i,
    (_m, pre: string, semi: string) => `${pre}font-family: ${esc(brand.fontStack)}${semi}`,
  );
}

/** Brands a text part: the engine badge as the last line unless removed. */
export function brandText(text: string, brand: MailBrand | null, locale: MailLocale): string {
  if (!brand?.showBadge) return text;
  return `${text.replace(/\s+$/, '')}\n\n--\n${BADGE_TEXT[locale]}\n`;
}
