import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import en from './en.json';
import it from './it.json';
import ticketsEn from './tickets.en.json';
import ticketsIt from './tickets.it.json';

export const LOCALES = ['en', 'it'] as const;
export type Locale = (typeof LOCALES)[number];

const STORAGE_KEY = 'pw.locale';

export const isLocale = (v: unknown): v is Locale => typeof v === 'string' && (LOCALES as readonly string[]).includes(v);

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
  resources: { en: { translation: { ...en, ...ticketsEn } }, it: { translation: { ...it, ...ticketsIt } } },
  lng: initialLocale(),
  fallbackLng: false,
  supportedLngs: [...LOCALES],
  interpolation: { escapeValue: false },
  returnNull: false,
  initAsync: false,
});
document.documentElement.lang = i18next.language;

export { i18next };
