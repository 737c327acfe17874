import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { ErrorAlert } from '../../ui';

/**
 * A refusal of billing or the agency in words: the 402/409/422 codes these operations answer
 * (and a 402's `details.reason`) have texts of their own in `billing.reasons`; other errors are
 * the shared ErrorAlert (field errors of a 400 stay at their fields).
 */
export function ReasonAlert({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  const { t } = useTranslation();
  if (!error) return null;
  if (!isApiError(error)) return <ErrorAlert error={error} fields={fields} />;
  const detail = typeof error.details.reason === 'string' ? error.details.reason : '';
  const reason =
    (detail && t(`billing.reasons.${detail}`, { defaultValue: '' })) ||
    t(`billing.reasons.${error.code}`, { defaultValue: '' });
  if (!reason) return <ErrorAlert error={error} fields={fields} />;
  const known = t(`errors.codes.${error.code}`, { defaultValue: '' });
  // A code the shared catalogue knows keeps its title; otherwise the reason is the title.
  return (
    <div className="alert alert-error" role="alert">
      <strong>{known || reason}</strong>
      {known && <div>{reason}</div>}
      <div className="code">{t('errors.code', { code: error.code })}</div>
    </div>
  );
}
