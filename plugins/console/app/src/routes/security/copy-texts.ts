import { useTranslation } from 'react-i18next';
import type { CopyTexts } from '../../ui';

/** The copy buttons' texts of the security area. */
export function useCopyTexts(): CopyTexts {
  const { t } = useTranslation();
  return { button: t('security.copy'), copied: t('security.copied'), failed: t('security.copyFailed') };
}
