import { useTranslation } from 'react-i18next';
import { SelectField, useTheme, type ThemeChoice } from '../ui';

export function ThemeSwitch() {
  const { t } = useTranslation();
  const [theme, setTheme] = useTheme();
  return (
    <SelectField
      label={t('common.theme.label')}
      value={theme}
      onChange={(e) => setTheme(e.target.value as ThemeChoice)}
    >
      <option value="system">{t('common.theme.system')}</option>
      <option value="light">{t('common.theme.light')}</option>
      <option value="dark">{t('common.theme.dark')}</option>
    </SelectField>
  );
}
