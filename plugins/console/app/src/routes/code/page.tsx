import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { codeKeys } from '../../queries/code';
import { codehostKeys, codehostStatusQuery, useInstallCodeHost } from '../../queries/codehost';
import { useCurrentWorkspace } from '../../queries/workspaces';
import { Button, ConfirmAction, EmptyState, ErrorAlert, ErrorState, LoadingState, useFormat, useToast } from '../../ui';
import { Execution } from './execution';
import { OpenSource } from './oss';
import { Repositories } from './repositories';
import { Runners, TestTicket } from './runners';
import '../workspaces/workspaces.css';
import '../inbox/inbox.css';
import './code.css';

type Installation = Schema<'CodeHostInstallation'>;

/**
 * /settings/code (owners and admins): the code host's installations (install, sync, unlink), the
 * repositories of the workspace chosen in the top bar with their code index, where diagnoses and
 * fixes run (with the workflow preview and the write-only credentials), and open-source intake.
 */
export default function CodeSettingsPage() {
  const { t } = useTranslation();
  const { workspaceId } = useCurrentWorkspace();
  return (
    <div className="stack">
      <h1>{t('code.title')}</h1>
      <p className="muted">{t('code.intro')}</p>
      <CodeHost />
      {workspaceId ? (
        <div className="stack" key={workspaceId}>
          <Repositories workspaceId={workspaceId} />
          <Execution workspaceId={workspaceId} />
          <Runners workspaceId={workspaceId} />
          <TestTicket />
          <OpenSource workspaceId={workspaceId} />
        </div>
      ) : (
        <EmptyState title={t('code.noWorkspace')} />
      )}
    </div>
  );
}

function CodeHost() {
  const { t } = useTranslation();
  const status = useQuery(codehostStatusQuery());
  const install = useInstallCodeHost('/settings/code');
  if (status.isPending) return <LoadingState />;
  if (status.isError) return <ErrorState error={status.error} retry={() => void status.refetch()} />;
  const { app, installations } = status.data;
  const host = t(`codehost.hosts.${app.host}`, { defaultValue: app.host });
  return (
    <section className="card stack" aria-labelledby="code-host">
      <h2 id="code-host">{t('code.host.title')}</h2>
      <p className="muted">{t('code.host.intro', { host })}</p>
      {installations.length === 0 ? (
        <p>{t('code.host.none')}</p>
      ) : (
        installations.map((i) => <InstallationCard key={i.id} installation={i} />)
      )}
      <ErrorAlert error={install.error} />
      <div>
        <Button
          variant={installations.length ? undefined : 'primary'}
          pending={install.isPending || install.isSuccess}
          disabled={!app.install_available}
          onClick={() => install.mutate()}
        >
          {installations.length ? t('code.host.installAnother') : t('code.host.install')}
        </Button>
      </div>
      {!app.install_available && <p className="muted">{t('code.host.installUnavailable')}</p>}
    </section>
  );
}

function InstallationCard({ installation: i }: { installation: Installation }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const sync = useMutation({
    mutationFn: () => data(api.POST('/v1/codehost/installations/{id}/sync', { params: { path: { id: i.id } } })),
    onSuccess: () => {
      toast.success(t('code.host.synced'));
      void client.invalidateQueries({ queryKey: codehostKeys.status() });
    },
  });
  const unlink = useMutation({
    mutationFn: () => data(api.DELETE('/v1/codehost/installations/{id}', { params: { path: { id: i.id } } })),
    onSuccess: (r) => {
      toast.success(t('code.host.unlinked', { count: r.disconnected_repository_ids.length }));
      void client.invalidateQueries({ queryKey: codehostKeys.all });
      void client.invalidateQueries({ queryKey: codeKeys.all });
    },
  });
  const headingId = `installation-${i.id}`;
  const state = i.removed_at ? 'removed' : i.suspended_at ? 'suspended' : 'active';
  return (
    <div className="stack code-item" role="group" aria-labelledby={headingId}>
      <div className="spread">
        <h3 id={headingId}>{i.account.login}</h3>
        <span className={`inbox-status inbox-status-${state === 'active' ? 'verified' : 'failed'}`}>
          {t(`code.host.states.${state}`)}
        </span>
      </div>
      <dl className="ws-facts">
        <dt>{t('code.host.account')}</dt>
        <dd>{t(`code.host.accountTypes.${i.account.type}`)}</dd>
        <dt>{t('code.host.selection')}</dt>
        <dd>{t(`code.host.selections.${i.repository_selection}`)}</dd>
        <dt>{t('code.host.connected')}</dt>
        <dd>{fmt.number(i.repositories_connected)}</dd>
        <dt>{t('code.host.lastSynced')}</dt>
        <dd>{fmt.dateTime(i.last_synced_at) || t('code.never')}</dd>
      </dl>
      <ErrorAlert error={sync.error} />
      <div className="row">
        <Button pending={sync.isPending} onClick={() => sync.mutate()}>
          {t('code.host.sync')}
        </Button>
        <ConfirmAction
          label={t('code.host.unlink')}
          title={t('code.host.unlinkTitle', { login: i.account.login })}
          confirm={t('code.host.unlinkConfirm')}
          danger
          action={unlink}
        >
          <p>{t('code.host.unlinkBody', { count: i.repositories_connected })}</p>
        </ConfirmAction>
      </div>
    </div>
  );
}
