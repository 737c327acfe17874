import i18next from 'i18next';
import { useEffect, useSyncExternalStore } from 'react';
import { initReactI18next } from 'react-i18next';

// One catalogue per locale (en.json) plus one per area (tickets.en.json, inbox.en.json…), merged
// by texts-<locale>.ts: an area's texts live next to each other and two areas never edit the same
// file. Only the locale in use is loaded (the other one would be a fifth of the first load);
// switching loads the other one first.
type Catalogue = Record<string, unknown>;
const catalogues: Record<Locale, () => Promise<{ default: Catalogue }>> = {
  en: () => import('./texts-en'),
  it: () => import('./texts-it'),
};
const catalogue = async (locale: Locale): Promise<Catalogue> => (await catalogues[locale]()).default;

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

/** Loads a locale's texts (once) without switching to it. */
export async function loadLocale(locale: Locale): Promise<void> {
  if (!i18next.hasResourceBundle(locale, 'translation'))
    i18next.addResourceBundle(locale, 'translation', await catalogue(locale));
}

/**
 * Whether `locale`'s texts are loaded; loads them if not and renders again once they are. For texts shown in
 * another language than the console's (the brand preview shows the customers' language).
 */
export function useLocaleLoaded(locale: Locale): boolean {
  const loaded = useSyncExternalStore(
    (changed) => {
      i18next.store.on('added', changed);
      return () => i18next.store.off('added', changed);
    },
    () => i18next.hasResourceBundle(locale, 'translation'),
  );
  useEffect(() => {
    if (!loaded) void loadLocale(locale);
  }, [locale, loaded]);
  return loaded;
}

/** Switches the texts, `<html lang>` and Intl formats; remembered on this browser. */
export async function setLocale(locale: Locale): Promise<void> {
  localStorage.setItem(STORAGE_KEY, locale);
  document.documentElement.lang = locale;
  await loadLocale(locale);
  if (i18next.language !== locale) await i18next.changeLanguage(locale);
}

/** Resolves once the texts of the first locale are loaded and i18next is set up: render after it. */
export const i18nReady: Promise<void> = (async () => {
  const lng = initialLocale();
  await i18next.use(initReactI18next).init({
    resources: { [lng]: { translation: await catalogue(lng) } },
    // The other locale is added by setLocale when someone switches to it.
    partialBundledLanguages: true,
    lng,
    fallbackLng: false,
    supportedLngs: [...LOCALES],
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  document.documentElement.lang = i18next.language;
})();

export { i18next };
