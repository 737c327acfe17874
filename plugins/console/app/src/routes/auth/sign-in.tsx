import { useState } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, data, href } from '../../api/client';
import { meQuery, useSetSession } from '../../queries/session';
import { safeRedirect } from '../../app/paths';
import { Button, ErrorAlert, Form, TextField, fieldError } from '../../ui';

/**
 * /login: password, emailed link, single sign-on by the address's domain, or the code host.
 * The code host and SSO flows come back here with `?error=` / `?sso_error=` when they fail.
 */
export default function SignIn() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const setSession = useSetSession();
  const redirectTo = safeRedirect(params.get('redirect_to'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const me = useQuery({ ...meQuery(), retry: false });

  const login = useMutation({
    mutationFn: () => data(api.POST('/v1/auth/login', { body: { email, password } })),
    onSuccess: (ctx) => {
      setSession(ctx);
      void navigate(redirectTo, { replace: true });
    },
  });
  const magic = useMutation({
    mutationFn: () => data(api.POST('/v1/auth/magic-link', { body: { email, redirect_to: redirectTo } })),
  });
  const sso = useMutation({
    mutationFn: () => data(api.POST('/v1/auth/sso/start', { body: { email, redirect_to: redirectTo } })),
    onSuccess: (r) => window.location.assign(r.redirect_url),
  });

  if (me.data) return <Navigate to={redirectTo} replace />;

  const flowError = params.get('sso_error') ?? params.get('error');
  const failed = login.error ?? magic.error ?? sso.error;
  const submit = () => {
    magic.reset();
    sso.reset();
    login.mutate();
  };
  return (
    <div className="stack">
      <h1>{t('auth.signIn.title')}</h1>
      {flowError && (
        <div className="alert alert-error" role="alert">
          {t(`errors.codes.${flowError}`, { defaultValue: t('auth.signIn.flowFailed') })}{' '}
          <span className="code">({flowError})</span>
        </div>
      )}
      {magic.isSuccess && (
        <div className="alert alert-success" role="status">
          {t('auth.signIn.magicSent', { email })}
        </div>
      )}
      <ErrorAlert error={failed} fields={['email', 'password']} />
      <Form className="stack" onSubmit={submit}>
        <TextField
          label={t('fields.email')}
          type="email"
          name="email"
          autoComplete="email"
          required
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(failed, 'email')}
        />
        <TextField
          label={t('fields.password')}
          type="password"
          name="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError(login.error, 'password')}
        />
        <Button type="submit" variant="primary" block pending={login.isPending}>
          {t('auth.signIn.submit')}
        </Button>
      </Form>
      <p>
        <Link to="/forgot-password">{t('auth.signIn.forgot')}</Link>
      </p>
      <div className="divider">{t('common.or')}</div>
      <div className="stack">
        <Button
          block
          pending={magic.isPending}
          onClick={() => {
            login.reset();
            sso.reset();
            magic.mutate();
          }}
        >
          {t('auth.signIn.magic')}
        </Button>
        <Button
          block
          pending={sso.isPending}
          onClick={() => {
            login.reset();
            magic.reset();
            sso.mutate();
          }}
        >
          {t('auth.signIn.sso')}
        </Button>
        <a className="btn btn-secondary btn-block" href={href('/v1/auth/codehost/start', { redirect_to: redirectTo })}>
          {t('auth.signIn.codeHost')}
        </a>
      </div>
      <p className="muted">
        {t('auth.signIn.noAccount')} <Link to="/signup">{t('auth.signUp.link')}</Link>
      </p>
    </div>
  );
}
