import { useTranslation } from 'react-i18next';
import { LOCALES } from '../i18n';

/** An <option> for each language the console and the service speak, each named in the person's language. */
export function LocaleOptions() {
  const { t } = useTranslation();
  return LOCALES.map((l) => (
    <option key={l} value={l}>
      {t(`common.locales.${l}`)}
    </option>
  ));
}
