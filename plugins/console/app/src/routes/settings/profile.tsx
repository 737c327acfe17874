import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, data, href } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { setLocale, type Locale } from '../../i18n';
import { codehostStatusQuery } from '../../queries/codehost';
import { useMe, useSetSession } from '../../queries/session';
import {
  ErrorAlert,
  Form,
  FormActions,
  NewPasswordField,
  LoadingState,
  LocaleOptions,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';

/** /settings/profile: name and language; address and password need the current password. */
export default function Profile() {
  const { t } = useTranslation();
  const me = useMe();
  if (!me.data) return <LoadingState />;
  return (
    <div className="stack">
      <h1>{t('profile.title')}</h1>
      <Details key={me.data.user.updated_at} name={me.data.user.name} locale={me.data.user.locale} />
      <Credentials key={`c-${me.data.user.updated_at}`} email={me.data.user.email} />
      <CodeHost login={me.data.user.code_host_login} lastLogin={me.data.user.last_login_at} />
    </div>
  );
}

function useUpdateMe(done: string) {
  const { t } = useTranslation();
  const toast = useToast();
  const setSession = useSetSession();
  return useMutation({
    mutationFn: (body: RequestBody<'/v1/me', 'patch'>) => data(api.PATCH('/v1/me', { body })),
    onSuccess: (ctx) => {
      setSession(ctx);
      void setLocale(ctx.user.locale);
      toast.success(t(done));
    },
  });
}

function Details({ name: initialName, locale: initialLocale }: { name: string; locale: string }) {
  const { t } = useTranslation();
  const [name, setName] = useState(initialName);
  const [locale, setLocaleChoice] = useState(initialLocale);
  const save = useUpdateMe('profile.saved');
  const submit = () => {
    save.mutate({ name, locale: locale as Locale });
  };
  return (
    <section className="card stack" aria-labelledby="profile-details">
      <h2 id="profile-details">{t('profile.details')}</h2>
      <ErrorAlert error={save.error} fields={['name', 'locale']} />
      <Form className="stack" onSubmit={submit}>
        <TextField
          label={t('fields.name')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(save.error, 'name')}
        />
        <SelectField
          label={t('common.language')}
          value={locale}
          onChange={(e) => setLocaleChoice(e.target.value)}
          error={fieldError(save.error, 'locale')}
        >
          <LocaleOptions />
        </SelectField>
        <FormActions submit={t('common.save')} pending={save.isPending} />
      </Form>
    </section>
  );
}

function Credentials({ email: initialEmail }: { email: string }) {
  const { t } = useTranslation();
  const [email, setEmail] = useState(initialEmail);
  const [password, setPassword] = useState('');
  const [current, setCurrent] = useState('');
  const save = useUpdateMe('profile.credentialsSaved');
  const submit = () => {
    save.mutate({
      ...(email !== initialEmail ? { email } : {}),
      ...(password ? { password } : {}),
      current_password: current,
    });
  };
  return (
    <section className="card stack" aria-labelledby="profile-credentials">
      <h2 id="profile-credentials">{t('profile.credentials')}</h2>
      <p className="muted">{t('profile.credentialsIntro')}</p>
      <ErrorAlert error={save.error} fields={['email', 'password', 'current_password']} />
      <Form className="stack" onSubmit={submit}>
        <TextField
          label={t('fields.email')}
          type="email"
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(save.error, 'email')}
        />
        <NewPasswordField
          label={t('fields.newPassword')}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={fieldError(save.error, 'password')}
        />
        <TextField
          label={t('fields.currentPassword')}
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={fieldError(save.error, 'current_password')}
        />
        <FormActions submit={t('profile.saveCredentials')} pending={save.isPending} />
      </Form>
    </section>
  );
}

function CodeHost({ login, lastLogin }: { login: string | null; lastLogin: string | null }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  // A host that signs nobody in (the local host without accounts) cannot link either.
  const available = useQuery(codehostStatusQuery()).data?.app.sign_in_available;
  return (
    <section className="card stack" aria-labelledby="profile-codehost">
      <h2 id="profile-codehost">{t('profile.codeHost')}</h2>
      <p>{login ? t('profile.codeHostLinked', { login }) : t('profile.codeHostNone')}</p>
      {lastLogin && <p className="muted">{t('profile.lastLogin', { date: fmt.dateTime(lastLogin) })}</p>}
      {available === false && <p className="muted">{t('profile.codeHostUnavailable')}</p>}
      {available && (
        <div>
          <a
            className="btn btn-secondary"
            href={href('/v1/auth/codehost/start', { intent: 'link', redirect_to: '/settings/profile' })}
          >
            {login ? t('profile.codeHostRelink') : t('profile.codeHostLink')}
          </a>
        </div>
      )}
    </section>
  );
}
