import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { Button, ConfirmDialog, ErrorAlert, Form, TextField, fieldError, useFormat } from '../../ui';

type Body = RequestBody<'/v1/privacy/erasures', 'post'>;

/** Erases one end user (by email or the widget's user id) everywhere, after confirming; the answer counts the rows by table. */
export function Erasure() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [email, setEmail] = useState('');
  const [userId, setUserId] = useState('');
  const [asking, setAsking] = useState(false);
  const erase = useMutation({
    mutationFn: (body: Body) => data(api.POST('/v1/privacy/erasures', { body })),
    onSuccess: () => {
      setAsking(false);
      setEmail('');
      setUserId('');
    },
    onError: () => setAsking(false),
  });
  const body = (): Body => ({
    ...(email.trim() ? { email: email.trim() } : {}),
    ...(userId.trim() ? { user_id: userId.trim() } : {}),
  });
  const who = [email.trim(), userId.trim()].filter(Boolean).join(' · ');
  const submit = () => {
    erase.reset();
    setAsking(true);
  };
  const counts = Object.entries(erase.data?.counts ?? {}).filter(([, n]) => n > 0);
  return (
    <section className="card stack" aria-labelledby="privacy-erasure">
      <h2 id="privacy-erasure">{t('privacy.erasure.title')}</h2>
      <p>{t('privacy.erasure.body')}</p>
      <Form className="stack" onSubmit={submit}>
        <ErrorAlert error={erase.error} fields={['email', 'user_id']} />
        <div className="ws-fields">
          <TextField
            label={t('privacy.erasure.email')}
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={fieldError(erase.error, 'email')}
          />
          <TextField
            label={t('privacy.erasure.userId')}
            hint={t('privacy.erasure.userIdHint')}
            value={userId}
            onChange={(e) => setUserId(e.target.value)}
            error={fieldError(erase.error, 'user_id')}
          />
        </div>
        <div>
          <Button type="submit" variant="danger">
            {t('privacy.erasure.submit')}
          </Button>
        </div>
      </Form>
      {erase.data && (
        <div className="alert alert-success stack" role="status">
          <strong>{t('privacy.erasure.done', { count: counts.reduce((sum, [, n]) => sum + n, 0) })}</strong>
          {counts.length > 0 && (
            <div className="table-wrap" role="region" aria-label={t('privacy.erasure.counts')} tabIndex={0}>
              <table>
                <caption className="visually-hidden">{t('privacy.erasure.counts')}</caption>
                <thead>
                  <tr>
                    <th scope="col">{t('privacy.erasure.table')}</th>
                    <th scope="col">{t('privacy.erasure.rows')}</th>
                  </tr>
                </thead>
                <tbody>
                  {counts.map(([table, n]) => (
                    <tr key={table}>
                      <td>
                        <code>{table}</code>
                      </td>
                      <td>{fmt.number(n)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </div>
      )}
      {asking && (
        <ConfirmDialog
          title={t('privacy.erasure.confirmTitle', { who: who || t('privacy.erasure.nobody') })}
          confirm={t('privacy.erasure.confirm')}
          danger
          pending={erase.isPending}
          error={null}
          onConfirm={() => erase.mutate(body())}
          onClose={() => setAsking(false)}
        >
          <p>{t('privacy.erasure.confirmBody')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
