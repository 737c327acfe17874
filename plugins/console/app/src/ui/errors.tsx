import { useTranslation } from 'react-i18next';
import { ApiError, isApiError } from '../api/errors';
import { Button } from './button';

/** The title of an error in the person's language: a known code's text, else the API's own message. */
export function useErrorText() {
  const { t } = useTranslation();
  return (error: unknown): { title: string; message: string; code: string | null } => {
    if (isApiError(error)) {
      const known = t(`errors.codes.${error.code}`, { defaultValue: '' });
      return { title: known || t('errors.generic'), message: error.message, code: error.code };
    }
    return { title: t('errors.generic'), message: error instanceof Error ? error.message : String(error), code: null };
  };
}

/**
 * An error of a form or an action, as the API stated it (localized title, the API's message and
 * code). Field errors of a 400 are shown at their fields; this lists the rest.
 */
export function ErrorAlert({ error, fields = [] }: { error: unknown; fields?: string[] }) {
  const text = useErrorText();
  const { t } = useTranslation();
  if (!error) return null;
  const known = isApiError(error) ? error.fieldErrors.filter((e) => fields.some((f) => e.path === `payload.${f}`)) : [];
  const others = isApiError(error) ? error.fieldErrors.filter((e) => !known.includes(e)) : [];
  const { title, message, code } = text(error);
  const onlyFields = isApiError(error) && error.code === 'invalid_request' && known.length > 0 && others.length === 0;
  return (
    <div className="alert alert-error" role="alert">
      <strong>{onlyFields ? t('errors.checkFields') : title}</strong>
      {!onlyFields && message !== title && <div>{message}</div>}
      {others.length > 0 && (
        <ul>
          {others.map((e) => (
            <li key={e.path}>
              {e.path}: {e.message}
            </li>
          ))}
        </ul>
      )}
      {code && !onlyFields && <div className="code">{t('errors.code', { code })}</div>}
    </div>
  );
}

/** A page or section that could not load: what the API said, and a way to try again. */
export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const text = useErrorText();
  const { t } = useTranslation();
  const { title, message, code } = text(error);
  return (
    <section className="state" role="alert">
      <h2>{title}</h2>
      <p>{message}</p>
      {code && <p className="code">{t('errors.code', { code })}</p>}
      {retry && <Button onClick={retry}>{t('common.retry')}</Button>}
    </section>
  );
}

/** The message of one field from a failed mutation (`details.errors` path `payload.<name>`). */
export function fieldError(error: unknown, name: string): string | undefined {
  return error instanceof ApiError ? error.fieldError(name) : undefined;
}
