/**
 * Mail templates: `{{key}}` placeholders (dotted paths reach into objects) in a subject, a text
 * part and an optional HTML part, each in every locale. Values are HTML-escaped in the HTML
 * part; without an HTML template the HTML part is built from the text.
 */

import { brandHtml, brandText, type MailBrand } from './branding.js';
import { escapeHtml } from '../../../core/http/html.js';

import { MAIL_LOCALES, type Localized, type MailLocale, type MailTemplate } from '../../../core/contracts/mail.js';

export { MAIL_LOCALES, type Localized, type MailLocale, type MailTemplate };

export interface RenderedMail {
  subject: string;
  text: string;
  html: string;
}

export class MailTemplateError extends Error {
  override name = 'MailTemplateError';
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_]+)*)\s*\}\}/g;
const NAME = /^[a-z][a-z0-9_-]*(\.[a-z0-9_-]+)*$/;

/** Checks a template's shape; throws MailTemplateError naming what is wrong. */
export function checkTemplate(template: MailTemplate): void {
  const name = template?.name;
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw new MailTemplateError(`mail template name ${JSON.stringify(name)} is not like "plugin.what"`);
  }
  const parts: Array<[string, Localized | undefined, boolean]> = [
    ['subject', template.subject, true],
    ['text', template.text, true],
    ['html', template.html, false],
  ];
  for (const [part, texts, required] of parts) {
    if (texts === undefined && !required) continue;
    for (const locale of MAIL_LOCALES) {
      const value = texts?.[locale];
      if (typeof value !== 'string' || value.trim() === '') {
        throw new MailTemplateError(`mail template ${name}: ${part}.${locale} is missing`);
      }
    }
  }
  if (template.audience !== undefined && template.audience !== 'customer' && template.audience !== 'team') {
    throw new MailTemplateError(`mail template ${name}: audience is customer or team`);
  }
}

/** Placeholders a text uses, e.g. `['user.name', 'link']`. */
export function placeholders(text: string): string[] {
  return [...text.matchAll(PLACEHOLDER)].map((m) => m[1]);
}

function lookup(data: Record<string, unknown>, path: string): unknown {
  let cur: unknown = data;
  for (const key of path.split('.')) {
    if (typeof cur !== 'object' || cur === null || !Object.prototype.hasOwnProperty.call(cur, key)) return undefined;
    cur = (cur as Record<string, unknown>)[key];
  }
  return cur;
}

function display(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  return String(value);
}

/**
 * Replaces each `{{key}}` with its value (escaped by `escape`). A placeholder without a value
 * (undefined or null) throws: a mail with a blank link is worse than no mail.
 */
export function fill(
  text: string,
  data: Record<string, unknown>,
  escape: (s: string) => string,
  where: string,
): string {
  return text.replace(PLACEHOLDER, (_m, path: string) => {
    const value = lookup(data, path);
    if (value === undefined || value === null) throw new MailTemplateError(`${where}: no value for {{${path}}}`);
    if (typeof value === 'object' && !(value instanceof Date))
      throw new MailTemplateError(`${where}: {{${path}}} is an object, not a value`);
    return escape(display(value));
  });
}

const URL_IN_TEXT = /\bhttps?:\/\/[^\s<>"']+/g;

/** One paragraph of text as HTML: escaped, line breaks kept, URLs as links. */
function paragraphHtml(paragraph: string): string {
  let out = '';
  let last = 0;
  for (const m of paragraph.matchAll(URL_IN_TEXT)) {
    // Sentence punctuation right after a URL is not part of it.
    const url = m[0].replace(/[.,;:!?)\]]+$/, '');
    const start = m.index;
    out += escapeHtml(paragraph.slice(last, start));
    out += `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`;
    last = start + url.length;
  }
  out += escapeHtml(paragraph.slice(last));
  return out.replace(/\n/g, '<br>\n');
}

/** A simple HTML document from a text part: escaped paragraphs, clickable links. */
export function htmlFromText(text: string, subject: string, locale: MailLocale): string {
  const paragraphs = text
    .replace(/\r\n?/g, '\n')
    .split(/\n[ \t]*\n+/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p>${paragraphHtml(p)}</p>`);
  return [
    '<!doctype html>',
    `<html lang="${locale}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(subject)}</title></head>`,
    "<body style=\"font-family: -apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, " +
      'Arial, sans-serif; font-size: 15px; line-height: 1.5; color: #1f2328;">',
    ...paragraphs,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/** Renders a template in one locale with its data, with a brand's header, font and badge when given. */
export function renderTemplate(
  template: MailTemplate,
  locale: MailLocale,
  data: Record<string, unknown>,
  brand: MailBrand | null = null,
): RenderedMail {
  const where = (part: string) => `mail template ${template.name} (${part}.${locale})`;
  // A subject is one header line: line breaks inside values become spaces.
  const subject = fill(template.subject[locale], data, (s) => s, where('subject'))
    .replace(/\s*[\r\n]+\s*/g, ' ')
    .trim();
  const text = fill(template.text[locale], data, (s) => s, where('text'));
  const html = template.html
    ? fill(template.html[locale], data, escapeHtml, where('html'))
    : htmlFromText(text, subject, locale);
  return { subject, text: brandText(text, brand, locale), html: brandHtml(html, brand, locale) };
}
