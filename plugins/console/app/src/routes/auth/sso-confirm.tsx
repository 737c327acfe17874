import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { safeRedirect } from '../../app/paths';
import { ssoKeys } from '../../queries/sso';
import { Button, ErrorAlert, ErrorState, LoadingState } from '../../ui';

/**
 * /sso/confirm?connection=&redirect_to=: an app tile of the identity provider lands here
 * (GET /v1/auth/sso/login). Nothing is signed in until the person confirms; the sign-in then
 * goes to the provider and completes at /v1/auth/sso/complete, which lands on redirect_to.
 */
export default function SsoConfirm() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const id = params.get('connection') ?? '';
  const redirectTo = safeRedirect(params.get('redirect_to'));
  const tile = useQuery({
    queryKey: ssoKeys.tile(id),
    queryFn: () => data(api.GET('/v1/auth/sso/connections/{id}', { params: { path: { id } } })),
    enabled: id !== '',
    retry: false,
  });
  const start = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/auth/sso/connections/{id}/start', {
          params: { path: { id } },
          body: { redirect_to: redirectTo },
        }),
      ),
    onSuccess: (r) => window.location.assign(r.redirect_url),
  });
  if (!id)
    return (
      <div className="alert alert-error" role="alert">
        {t('auth.sso.missing')}
      </div>
    );
  if (tile.isPending) return <LoadingState />;
  if (tile.isError) return <ErrorState error={tile.error} />;
  return (
    <div className="stack">
      <h1>{t('auth.sso.title', { org: tile.data.organization.name })}</h1>
      <p>{t('auth.sso.body', { name: tile.data.name, protocol: tile.data.protocol.toUpperCase() })}</p>
      <ErrorAlert error={start.error} />
      <Button variant="primary" block pending={start.isPending || start.isSuccess} onClick={() => start.mutate()}>
        {t('auth.sso.continue')}
      </Button>
      <Link to="/login">{t('common.cancel')}</Link>
    </div>
  );
}
