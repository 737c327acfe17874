import { useTranslation } from 'react-i18next';
import { LocaleOptions, SelectField } from '../ui';
import { isLocale, setLocale, type Locale } from '../i18n';

/** The language select; `onChange` also saves it to the profile when someone is signed in. */
export function LocaleSwitch({ onChange }: { onChange?: (locale: Locale) => void }) {
  const { t, i18n } = useTranslation();
  return (
    <SelectField
      label={t('common.language')}
      value={i18n.language}
      onChange={(e) => {
        const v = e.target.value;
        if (!isLocale(v)) return;
        void setLocale(v);
        onChange?.(v);
      }}
    >
      <LocaleOptions />
    </SelectField>
  );
}
