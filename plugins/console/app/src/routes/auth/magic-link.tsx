import { Link, Navigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { safeRedirect } from '../../app/paths';
import { useSetSession } from '../../queries/session';
import { ErrorAlert, LoadingState } from '../../ui';
import { useTokenAction } from './use-token-action';

/** /magic-link?token=&redirect_to=: the emailed sign-in link. */
export default function MagicLink() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const token = params.get('token');
  const setSession = useSetSession();
  const verify = useMutation({
    mutationFn: (tok: string) => data(api.POST('/v1/auth/magic-link/verify', { body: { token: tok } })),
    onSuccess: setSession,
  });
  useTokenAction(token, verify);
  if (verify.isSuccess) return <Navigate to={safeRedirect(params.get('redirect_to'))} replace />;
  return (
    <div className="stack">
      <h1>{t('auth.magic.title')}</h1>
      {!token && (
        <div className="alert alert-error" role="alert">
          {t('auth.missingToken')}
        </div>
      )}
      {verify.isPending && <LoadingState label={t('auth.magic.checking')} />}
      <ErrorAlert error={verify.error} />
      {verify.isError && <Link to="/login">{t('auth.magic.again')}</Link>}
    </div>
  );
}
