import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import { ErrorAlert, Form, FormActions, TextArea, TextField, fieldError, useFormat } from '../../ui';

/**
 * Closing the organization: what happens, then the owner types the organization's slug (the API
 * checks it: 422 confirmation_mismatch at the field). Every session stops at once, this one too,
 * so the answer is shown from memory with a way to the sign-in page.
 */
export function Closure({ slug, name }: { slug: string; name: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [confirm, setConfirm] = useState('');
  const [reason, setReason] = useState('');
  const close = useMutation({
    mutationFn: () =>
      data(api.POST('/v1/privacy/closure', { body: { confirm, ...(reason.trim() ? { reason: reason.trim() } : {}) } })),
  });
  const mismatch = isApiError(close.error) && close.error.code === 'confirmation_mismatch';
  if (close.data) {
    return (
      <section className="card stack" aria-labelledby="privacy-closure">
        <h2 id="privacy-closure">{t('privacy.closure.title')}</h2>
        <div className="alert alert-success" role="status">
          <strong>{t('privacy.closure.closed', { name, when: fmt.dateTime(close.data.closed_at) })}</strong>
          <div>{t('privacy.closure.purge', { when: fmt.date(close.data.purge_after) })}</div>
          <div>
            {close.data.subscription_canceled
              ? t('privacy.closure.subscriptionCanceled')
              : t('privacy.closure.noSubscription')}
          </div>
        </div>
        {/* A full page load: this session has stopped, nothing cached of it should remain. */}
        <div>
          <a className="btn" href="/login">
            {t('privacy.closure.toSignIn')}
          </a>
        </div>
      </section>
    );
  }
  return (
    <Form className="card stack" onSubmit={() => close.mutate()} aria-labelledby="privacy-closure">
      <h2 id="privacy-closure">{t('privacy.closure.title')}</h2>
      <p>{t('privacy.closure.body', { name })}</p>
      <ul>
        <li>{t('privacy.closure.effects.subscription')}</li>
        <li>{t('privacy.closure.effects.access')}</li>
        <li>{t('privacy.closure.effects.invitations')}</li>
        <li>{t('privacy.closure.effects.deletion')}</li>
      </ul>
      <p>{t('privacy.closure.exportFirst')}</p>
      <ErrorAlert error={mismatch ? null : close.error} fields={['confirm', 'reason']} />
      <TextArea
        label={t('privacy.closure.reason')}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        error={fieldError(close.error, 'reason')}
      />
      <TextField
        label={t('privacy.closure.confirm', { slug })}
        autoComplete="off"
        spellCheck={false}
        value={confirm}
        onChange={(e) => setConfirm(e.target.value)}
        error={fieldError(close.error, 'confirm') ?? (mismatch ? t('privacy.closure.mismatch', { slug }) : undefined)}
      />
      <FormActions submit={t('privacy.closure.submit')} variant="danger" pending={close.isPending} />
    </Form>
  );
}
