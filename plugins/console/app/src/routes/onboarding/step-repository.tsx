import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import {
  codehostKeys,
  codehostStatusQuery,
  installationRepositoriesQuery,
  useInstallCodeHost,
} from '../../queries/codehost';
import { Button, EmptyState, ErrorAlert, ErrorState, LoadingState } from '../../ui';
import { useOnboardingMutation, type Onboarding } from './use-onboarding';

/**
 * Step 1: connect the code host (its install page comes back to /settings/code-host/installed),
 * pick a repository; the service connects it and opens the onboarding pull request.
 */
export function RepositoryStep({ onboarding, onDone }: { onboarding: Onboarding; onDone: () => void }) {
  const { t } = useTranslation();
  const status = useQuery(codehostStatusQuery());
  const install = useInstallCodeHost();
  const repo = onboarding.repository;
  if (repo) {
    const pr = repo.onboarding_pr;
    return (
      <div className="stack">
        <p>{t('onboarding.repository.chosen', { name: repo.full_name })}</p>
        {pr.url && (
          <p>
            <a href={pr.url}>{t('onboarding.repository.pr', { number: pr.number ?? '' })}</a>{' '}
            <span className="badge">{t(`onboarding.repository.prStatus.${pr.status}`)}</span>
          </p>
        )}
        {pr.error && (
          <div className="alert alert-error" role="alert">
            {pr.error}
          </div>
        )}
        <div>
          <Button variant="primary" onClick={onDone}>
            {t('common.continue')}
          </Button>
        </div>
      </div>
    );
  }
  if (status.isPending) return <LoadingState />;
  if (status.isError) return <ErrorState error={status.error} retry={() => void status.refetch()} />;
  const installation = status.data.installations[0];
  if (!installation) {
    return (
      <div className="stack">
        <p>
          {t('onboarding.repository.install', {
            host: t(`codehost.hosts.${status.data.app.host}`, { defaultValue: status.data.app.host }),
          })}
        </p>
        <ErrorAlert error={install.error} />
        <div>
          <Button
            variant="primary"
            pending={install.isPending || install.isSuccess}
            disabled={!status.data.app.install_available}
            onClick={() => install.mutate()}
          >
            {t('onboarding.repository.installButton')}
          </Button>
        </div>
      </div>
    );
  }
  return <RepositoryPicker installationId={installation.id} workspaceId={onboarding.workspace!.id} />;
}

function RepositoryPicker({ installationId, workspaceId }: { installationId: string; workspaceId: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const repos = useQuery(installationRepositoriesQuery(installationId));
  const choose = useOnboardingMutation(async (r: { full_name: string; repository_id: string | null }) => {
    const body = { installation_id: installationId, workspace_id: workspaceId, full_name: r.full_name };
    const id = r.repository_id ?? (await data(api.POST('/v1/repositories', { body }))).id;
    return data(api.POST('/v1/onboarding/repository', { body: { repository_id: id } }));
  });
  if (repos.isPending) return <LoadingState />;
  if (repos.isError) return <ErrorState error={repos.error} retry={() => void repos.refetch()} />;
  const usable = repos.data.items.filter((r) => !r.archived && (!r.workspace_id || r.workspace_id === workspaceId));
  if (usable.length === 0)
    return (
      <EmptyState title={t('onboarding.repository.none')}>
        <p>{t('onboarding.repository.noneBody')}</p>
      </EmptyState>
    );
  return (
    <div className="stack">
      <p>{t('onboarding.repository.pick')}</p>
      <ErrorAlert error={choose.error} />
      <ul className="stack" aria-label={t('onboarding.repository.listLabel')}>
        {usable.map((r) => (
          <li key={r.external_id} className="spread">
            <span>
              <strong>{r.full_name}</strong> <span className="muted">({r.default_branch})</span>
            </span>
            <Button
              variant="primary"
              pending={choose.isPending && choose.variables?.full_name === r.full_name}
              disabled={choose.isPending}
              aria-label={t('onboarding.repository.useNamed', { name: r.full_name })}
              onClick={() =>
                choose.mutate(r, { onSuccess: () => void client.invalidateQueries({ queryKey: codehostKeys.all }) })
              }
            >
              {t('onboarding.repository.use')}
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}
