import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { useSetSession } from '../../queries/session';
import { Button, ErrorAlert, Form, NewPasswordField, TextField, fieldError } from '../../ui';

/** /reset-password?token=: the emailed reset link; a new password signs the person in. */
export default function ResetPassword() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token') ?? '';
  const navigate = useNavigate();
  const setSession = useSetSession();
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [mismatch, setMismatch] = useState(false);
  const confirm = useMutation({
    mutationFn: () => data(api.POST('/v1/auth/password-reset/confirm', { body: { token, password } })),
    onSuccess: (ctx) => {
      setSession(ctx);
      void navigate('/', { replace: true });
    },
  });
  const submit = () => {
    setMismatch(password !== repeat);
    if (password === repeat) confirm.mutate();
  };
  return (
    <div className="stack">
      <h1>{t('auth.reset.title')}</h1>
      {!token && (
        <div className="alert alert-error" role="alert">
          {t('auth.missingToken')}
        </div>
      )}
      <ErrorAlert error={confirm.error} fields={['password']} />
      <Form className="stack" onSubmit={submit}>
        <NewPasswordField
          label={t('fields.newPassword')}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError(confirm.error, 'password')}
        />
        <TextField
          label={t('fields.repeatPassword')}
          type="password"
          autoComplete="new-password"
          value={repeat}
          onChange={(e) => setRepeat(e.target.value)}
          error={mismatch ? t('fields.passwordsDiffer') : undefined}
        />
        <Button type="submit" variant="primary" block pending={confirm.isPending} disabled={!token}>
          {t('auth.reset.submit')}
        </Button>
      </Form>
      <Link to="/forgot-password">{t('auth.reset.again')}</Link>
    </div>
  );
}
