import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { useSetSession } from '../../queries/session';
import { ErrorAlert, LoadingState } from '../../ui';
import { useTokenAction } from './use-token-action';

/** /verify-email?token=: the emailed confirmation link. Signs in when nobody is signed in. */
export default function VerifyEmail() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token');
  const setSession = useSetSession();
  const verify = useMutation({
    mutationFn: (tok: string) => data(api.POST('/v1/auth/verify-email', { body: { token: tok } })),
    onSuccess: setSession,
  });
  useTokenAction(token, verify);
  return (
    <div className="stack">
      <h1>{t('auth.verify.title')}</h1>
      {!token && (
        <div className="alert alert-error" role="alert">
          {t('auth.missingToken')}
        </div>
      )}
      {verify.isPending && <LoadingState label={t('auth.verify.checking')} />}
      <ErrorAlert error={verify.error} />
      {verify.isSuccess && (
        <>
          <div className="alert alert-success" role="status">
            {t('auth.verify.done', { email: verify.data.user.email })}
          </div>
          <Link className="btn btn-primary btn-block" to="/">
            {t('common.continue')}
          </Link>
        </>
      )}
      {verify.isError && <Link to="/login">{t('auth.signIn.link')}</Link>}
    </div>
  );
}
