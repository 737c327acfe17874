import { useState } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isLocale } from '../../i18n';
import { useSetSession } from '../../queries/session';
import {
  Button,
  CheckboxField,
  ErrorAlert,
  Form,
  NewPasswordField,
  SelectField,
  TextField,
  fieldError,
} from '../../ui';

const FIELDS = ['name', 'email', 'password', 'organization_name', 'organization_type', 'accept_terms', 'referral_code'];

/** /signup (`?ref=<code>` from a referral link): a new organization and its owner. */
export default function SignUp() {
  const { t, i18n } = useTranslation();
  const [params] = useSearchParams();
  const navigate = useNavigate();
  const setSession = useSetSession();
  const [form, setForm] = useState({
    name: '',
    email: '',
    password: '',
    organization_name: '',
    organization_type: 'direct' as 'direct' | 'agency',
    accept_terms: false,
  });
  const referral = params.get('ref') ?? undefined;
  const signup = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/auth/signup', {
          body: {
            ...form,
            // Sent as the person checked it; the API refuses anything but true (accept_terms is `const: true`).
            accept_terms: form.accept_terms as true,
            locale: isLocale(i18n.language) ? i18n.language : 'en',
            referral_code: referral,
          },
        }),
      ),
    onSuccess: (ctx) => {
      const { email_verification_required: _, ...session } = ctx;
      setSession(session);
      void navigate('/onboarding', { replace: true });
    },
  });
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) => setForm((f) => ({ ...f, [k]: v }));
  const err = (name: string) => fieldError(signup.error, name);
  return (
    <div className="stack">
      <h1>{t('auth.signUp.title')}</h1>
      <p className="muted">{t('auth.signUp.intro')}</p>
      <ErrorAlert error={signup.error} fields={FIELDS} />
      <Form className="stack" onSubmit={() => signup.mutate()}>
        <TextField
          label={t('fields.name')}
          name="name"
          autoComplete="name"
          value={form.name}
          onChange={(e) => set('name', e.target.value)}
          error={err('name')}
        />
        <TextField
          label={t('fields.workEmail')}
          type="email"
          name="email"
          autoComplete="email"
          value={form.email}
          onChange={(e) => set('email', e.target.value)}
          error={err('email')}
        />
        <NewPasswordField
          label={t('fields.password')}
          name="password"
          value={form.password}
          onChange={(e) => set('password', e.target.value)}
          error={err('password')}
        />
        <TextField
          label={t('fields.organizationName')}
          name="organization_name"
          autoComplete="organization"
          value={form.organization_name}
          onChange={(e) => set('organization_name', e.target.value)}
          error={err('organization_name')}
        />
        <SelectField
          label={t('fields.organizationType')}
          value={form.organization_type}
          onChange={(e) => set('organization_type', e.target.value as 'direct' | 'agency')}
          error={err('organization_type')}
          hint={t('auth.signUp.typeHint')}
        >
          <option value="direct">{t('auth.signUp.types.direct')}</option>
          <option value="agency">{t('auth.signUp.types.agency')}</option>
        </SelectField>
        <CheckboxField
          label={t('auth.signUp.terms')}
          checked={form.accept_terms}
          onChange={(e) => set('accept_terms', e.target.checked)}
          error={err('accept_terms')}
        />
        {referral && <p className="muted">{t('auth.signUp.referral', { code: referral })}</p>}
        <Button type="submit" variant="primary" block pending={signup.isPending}>
          {t('auth.signUp.submit')}
        </Button>
      </Form>
      <p className="muted">
        {t('auth.signUp.haveAccount')} <Link to="/login">{t('auth.signIn.link')}</Link>
      </p>
    </div>
  );
}
