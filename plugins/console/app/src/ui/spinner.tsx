import { useId } from 'react';
import { useTranslation } from 'react-i18next';

/** A spinner; `decorative` inside a control that already says what is happening. */
export function Spinner({ decorative = false, label }: { decorative?: boolean; label?: string }) {
  const { t } = useTranslation();
  if (decorative) return <span className="spinner" aria-hidden="true" />;
  return (
    <span role="status" className="row">
      <span className="spinner" aria-hidden="true" />
      <span>{label ?? t('common.loading')}</span>
    </span>
  );
}

/** Progress of long work (a demo run, a release): determinate when `value` is known. */
export function Progress({ label, value, max = 100 }: { label: string; value?: number; max?: number }) {
  const id = useId();
  return (
    <div className="field">
      <span className="label" id={id}>
        {label}
      </span>
      <progress aria-labelledby={id} value={value} max={value === undefined ? undefined : max} />
    </div>
  );
}
