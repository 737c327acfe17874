import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { Button, ErrorAlert, useFormat } from '../../ui';

/**
 * The organization's data as an archive: the API answers 202 at once and emails the requesting
 * owner a download link (valid 7 days) when the archive is built; it has no operation to read an
 * export's state later, so the page shows the answer's state and where the link goes.
 */
export function Export({ email }: { email: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const start = useMutation({ mutationFn: () => data(api.POST('/v1/privacy/exports')) });
  const e = start.data;
  return (
    <section className="card stack" aria-labelledby="privacy-export">
      <h2 id="privacy-export">{t('privacy.export.title')}</h2>
      <p>{t('privacy.export.body')}</p>
      <ErrorAlert error={start.error} />
      {e && (
        <div className={`alert ${e.status === 'failed' ? 'alert-error' : 'alert-info'}`} role="status">
          <strong>{t(`privacy.export.statuses.${e.status}`)}</strong>
          <div>{t('privacy.export.emailed', { email })}</div>
          <div className="muted">{t('privacy.export.started', { when: fmt.dateTime(e.created_at) })}</div>
        </div>
      )}
      <div>
        <Button variant="primary" pending={start.isPending} onClick={() => start.mutate()}>
          {t('privacy.export.start')}
        </Button>
      </div>
    </section>
  );
}
