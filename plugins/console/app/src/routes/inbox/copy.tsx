import { useTranslation } from 'react-i18next';
import { Button, useCopy } from '../../ui';

/** Copies one value (a DNS record's host or value, an address), with a toast; a refusal says to copy by hand. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const { t } = useTranslation();
  const copy = useCopy({ copied: t('inboxSettings.copied'), failed: t('inboxSettings.copyFailed') });
  return (
    <Button className="btn-small" aria-label={label} onClick={() => void copy(value)}>
      {t('inboxSettings.copy')}
    </Button>
  );
}
