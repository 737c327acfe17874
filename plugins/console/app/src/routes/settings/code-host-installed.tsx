import { useEffect, useState } from 'react';
import { Link, Navigate, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { codehostKeys, installReturn } from '../../queries/codehost';
import { onboardingKeys } from '../../queries/onboarding';
import { ErrorAlert, LoadingState } from '../../ui';
import { useTokenAction } from '../auth/use-token-action';

/**
 * /settings/code-host/installed: where an installation lands. The service's setup route
 * (`/codehost/setup`) has already linked it and passes `installation_id` (the API's id), or
 * `error=<code>`; a code host sent here directly passes its `state`, and the page links the
 * installation itself (POST /v1/codehost/installations). Then back to onboarding, or to the page
 * that started the installation (`useInstallCodeHost(returnTo)`).
 */
export default function CodeHostInstalled() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const client = useQueryClient();
  const installationId = params.get('installation_id');
  const state = params.get('state');
  const action = params.get('setup_action');
  const error = params.get('error');
  const linkedByService = !!installationId && !state && !error;
  // Onboarding, or the page that started the installation (the code settings).
  const [next] = useState(installReturn);
  const link = useMutation({
    mutationFn: (st: string) =>
      data(
        api.POST('/v1/codehost/installations', {
          body: {
            installation_id: installationId ?? '',
            state: st,
            ...(action === 'install' || action === 'update' || action === 'request' ? { setup_action: action } : {}),
          },
        }),
      ),
    onSuccess: () => void client.invalidateQueries({ queryKey: codehostKeys.all }),
  });
  useTokenAction(installationId && !error ? state : null, link);
  useEffect(() => {
    if (!linkedByService) return;
    void client.invalidateQueries({ queryKey: codehostKeys.all });
    void client.invalidateQueries({ queryKey: onboardingKeys.all });
  }, [linkedByService, client]);
  if (link.isSuccess || linkedByService) return <Navigate to={next} replace />;
  return (
    <div className="stack">
      <h1>{t('codehost.installedTitle')}</h1>
      {error && (
        <div className="alert alert-error" role="alert">
          {t(`errors.codes.${error}`, { defaultValue: t('errors.generic') })} <span className="code">({error})</span>
        </div>
      )}
      {!error && !installationId && (
        <div className="alert alert-error" role="alert">
          {t('codehost.missingParams')}
        </div>
      )}
      {link.isPending && <LoadingState label={t('codehost.linking')} />}
      <ErrorAlert error={link.error} />
      <Link to="/onboarding">{t('nav.onboarding')}</Link>
    </div>
  );
}
