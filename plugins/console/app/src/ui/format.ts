import { useTranslation } from 'react-i18next';

/** Dates and numbers in the person's language, through Intl (never hand-formatted). */
export function useFormat() {
  const { i18n } = useTranslation();
  const locale = i18n.language;
  const number = (n: number | null | undefined, opts?: Intl.NumberFormatOptions) =>
    n == null ? '' : new Intl.NumberFormat(locale, opts).format(n);
  return {
    locale,
    date: (iso: string | null | undefined, opts: Intl.DateTimeFormatOptions = { dateStyle: 'medium' }) =>
      iso ? new Intl.DateTimeFormat(locale, opts).format(new Date(iso)) : '',
    dateTime: (iso: string | null | undefined) =>
      iso ? new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)) : '',
    number,
    /** Money: the API's amounts (`*_usd`) are US dollars. */
    usd: (n: number | null | undefined) => number(n, { style: 'currency', currency: 'USD' }),
    /** "3 minutes ago", "in 2 days". */
    relative: (iso: string | null | undefined, now = Date.now()) => {
      if (!iso) return '';
      const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
      const rtf = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' });
      const units: [Intl.RelativeTimeFormatUnit, number][] = [
        ['year', 31536000],
        ['month', 2592000],
        ['day', 86400],
        ['hour', 3600],
        ['minute', 60],
      ];
      for (const [unit, size] of units)
        if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
      return rtf.format(seconds, 'second');
    },
  };
}
