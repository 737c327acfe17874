import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { Button, ErrorAlert, Form, TextField, fieldError } from '../../ui';

/** /forgot-password: asks for a reset link (the answer is the same whether the address exists or not). */
export default function ForgotPassword() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const request = useMutation({ mutationFn: () => data(api.POST('/v1/auth/password-reset', { body: { email } })) });
  return (
    <div className="stack">
      <h1>{t('auth.forgot.title')}</h1>
      <p className="muted">{t('auth.forgot.intro')}</p>
      {request.isSuccess ? (
        <div className="alert alert-success" role="status">
          {t('auth.forgot.sent', { email })}
        </div>
      ) : (
        <Form className="stack" onSubmit={() => request.mutate()}>
          <ErrorAlert error={request.error} fields={['email']} />
          <TextField
            label={t('fields.email')}
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={fieldError(request.error, 'email')}
          />
          <Button type="submit" variant="primary" block pending={request.isPending}>
            {t('auth.forgot.submit')}
          </Button>
        </Form>
      )}
      <Link to="/login">{t('auth.signIn.link')}</Link>
    </div>
  );
}
