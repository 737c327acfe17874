import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';

// One catalogue per locale (en.json) plus one per area (tickets.en.json, inbox.en.json…), merged:
// an area's texts live next to each other and two areas never edit the same file.
type Catalogue = Record<string, unknown>;
const files = import.meta.glob<Catalogue>('./*.json', { eager: true, import: 'default' });
function catalogue(locale: string): Catalogue {
  const merged: Catalogue = {};
  for (const [path, texts] of Object.entries(files)) {
    if (path === `./${locale}.json` || path.endsWith(`.${locale}.json`)) Object.assign(merged, texts);
  }
  return merged;
}

export const LOCALES = ['en', 'it'] as const;
export type Locale = (typeof LOCALES)[number];

const STORAGE_KEY = 'pw.locale';

export const isLocale = (v: unknown): v is Locale =>
  typeof v === 'string' && (LOCALES as readonly string[]).includes(v);

/** Before the profile is known: the last choice on this browser, else the browser's languages. */
export function initialLocale(): Locale {
  const stored = localStorage.getItem(STORAGE_KEY);
  if (isLocale(stored)) return stored;
  for (const lang of navigator.languages ?? [navigator.language]) {
    const base = lang.toLowerCase().split('-')[0];
    if (isLocale(base)) return base;
  }
  return 'en';
}

/** Switches the texts, `<html lang>` and Intl formats; remembered on this browser. */
export async function setLocale(locale: Locale): Promise<void> {
  localStorage.setItem(STORAGE_KEY, locale);
  document.documentElement.lang = locale;
  if (i18next.language !== locale) await i18next.changeLanguage(locale);
}

void i18next.use(initReactI18next).init({
  resources: { en: { translation: catalogue('en') }, it: { translation: catalogue('it') } },
  lng: initialLocale(),
  fallbackLng: false,
  supportedLngs: [...LOCALES],
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});
document.documentElement.lang = i18next.language;

export { i18next };
