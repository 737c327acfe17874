import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { codeKeys, repositoriesQuery, repositoryQuery, type Repository } from '../../queries/code';
import { codehostKeys, codehostStatusQuery, installationRepositoriesQuery } from '../../queries/codehost';
import {
  Button,
  ConfirmAction,
  EmptyState,
  ErrorAlert,
  ErrorState,
  Form,
  FormActions,
  LoadingState,
  QueryView,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';

/** The workspace's repositories, each with its code index, onboarding pull request, guidelines, labels and agent key. */
export function Repositories({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const list = useQuery(repositoriesQuery(workspaceId));
  return (
    <section className="card stack" aria-labelledby="code-repositories">
      <h2 id="code-repositories">{t('code.repos.title')}</h2>
      <QueryView query={list}>
        {(page) =>
          page.items.length === 0 ? (
            <EmptyState title={t('code.repos.none')}>
              <p>{t('code.repos.noneBody')}</p>
            </EmptyState>
          ) : (
            page.items.map((r) => <RepositoryCard key={r.id} initial={r} workspaceId={workspaceId} />)
          )
        }
      </QueryView>
      <ConnectRepository workspaceId={workspaceId} />
    </section>
  );
}

/** Connect another repository an installation reaches (plan limits answer 402, shown as the API says). */
function ConnectRepository({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const status = useQuery(codehostStatusQuery());
  const active = (status.data?.installations ?? []).filter((i) => !i.removed_at && !i.suspended_at);
  const [chosen, setChosen] = useState('');
  const installationId = active.some((i) => i.id === chosen) ? chosen : active[0]?.id;
  if (!installationId) return null;
  return (
    <div className="stack code-item" role="group" aria-labelledby="code-connect">
      <h3 id="code-connect">{t('code.repos.connectTitle')}</h3>
      {active.length > 1 && (
        <div className="ws-fields">
          <SelectField
            label={t('code.repos.installation')}
            value={installationId}
            onChange={(e) => setChosen(e.target.value)}
          >
            {active.map((i) => (
              <option key={i.id} value={i.id}>
                {i.account.login}
              </option>
            ))}
          </SelectField>
        </div>
      )}
      <ConnectList key={installationId} installationId={installationId} workspaceId={workspaceId} />
    </div>
  );
}

function ConnectList({ installationId, workspaceId }: { installationId: string; workspaceId: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const repos = useQuery(installationRepositoriesQuery(installationId));
  const connect = useMutation({
    mutationFn: (fullName: string) =>
      data(
        api.POST('/v1/repositories', {
          body: { installation_id: installationId, workspace_id: workspaceId, full_name: fullName },
        }),
      ),
    onSuccess: (r) => {
      void client.invalidateQueries({ queryKey: codehostKeys.all });
      void client.invalidateQueries({ queryKey: codeKeys.all });
      toast.success(t('code.repos.connected', { name: r.full_name }));
    },
  });
  if (repos.isPending) return <LoadingState />;
  if (repos.isError) return <ErrorState error={repos.error} retry={() => void repos.refetch()} />;
  const free = repos.data.items.filter((r) => !r.archived && !r.repository_id);
  if (free.length === 0) return <p className="muted">{t('code.repos.allConnected')}</p>;
  return (
    <div className="stack">
      <ErrorAlert error={connect.error} />
      <ul className="stack" aria-label={t('code.repos.connectList')}>
        {free.map((r) => (
          <li key={r.external_id} className="spread">
            <span>
              <strong>{r.full_name}</strong> <span className="muted">({r.default_branch})</span>
            </span>
            <Button
              pending={connect.isPending && connect.variables === r.full_name}
              disabled={connect.isPending}
              aria-label={t('code.repos.connectNamed', { name: r.full_name })}
              onClick={() => connect.mutate(r.full_name)}
            >
              {t('code.repos.connect')}
            </Button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** An action on a repository whose answer is the repository: the cache takes it. */
function useRepositoryAction(id: string, call: () => Promise<Repository>, done: string) {
  const client = useQueryClient();
  const toast = useToast();
  return useMutation({
    mutationFn: call,
    onSuccess: (r) => {
      client.setQueryData(codeKeys.repository(id), r);
      void client.invalidateQueries({ queryKey: codeKeys.repositories(r.workspace_id) });
      // Open-source settings list each repository's labels and guidelines; execution, its agent key and pull request.
      void client.invalidateQueries({ queryKey: codeKeys.oss(r.workspace_id) });
      void client.invalidateQueries({ queryKey: codeKeys.execution(r.workspace_id) });
      toast.success(done);
    },
  });
}

function RepositoryCard({ initial, workspaceId }: { initial: Repository; workspaceId: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  // Read again every 3 s while the code index is being built.
  const live = useQuery({ ...repositoryQuery(initial.id), initialData: initial });
  const r = live.data;
  const path = { params: { path: { id: r.id } } };
  const refresh = useRepositoryAction(
    r.id,
    () => data(api.POST('/v1/repositories/{id}/refresh', path)),
    t('code.repos.refreshed'),
  );
  const pr = useRepositoryAction(
    r.id,
    () => data(api.POST('/v1/repositories/{id}/onboarding-pr', path)),
    t('code.repos.prDone'),
  );
  const guidelines = useRepositoryAction(
    r.id,
    () => data(api.POST('/v1/repositories/{id}/guidelines', path)),
    t('code.repos.guidelinesRead'),
  );
  const labels = useRepositoryAction(
    r.id,
    () => data(api.POST('/v1/repositories/{id}/labels', path)),
    t('code.repos.labelsCreated'),
  );
  const error = refresh.error ?? pr.error ?? guidelines.error ?? labels.error;
  const headingId = `repo-${r.id}`;
  const ix = r.index;
  return (
    <div className="stack code-item" role="group" aria-labelledby={headingId}>
      <div className="spread">
        <h3 id={headingId}>
          <a href={r.html_url} target="_blank" rel="noreferrer">
            {r.full_name}
          </a>
        </h3>
        <span className="badge">
          {r.is_public ? t('code.repos.public') : t('code.repos.private')}
          {r.archived ? ` · ${t('code.repos.archived')}` : ''}
        </span>
      </div>
      <dl className="ws-facts">
        <dt>{t('code.repos.branch')}</dt>
        <dd>
          <code>{r.default_branch}</code>
        </dd>
        <dt>{t('code.repos.index')}</dt>
        <dd>
          <span
            className={`inbox-status inbox-status-${ix.status === 'ready' ? 'verified' : ix.status === 'failed' ? 'failed' : 'pending'}`}
            role="status"
          >
            {t(`code.repos.indexStates.${ix.status}`)}
          </span>
          {ix.status === 'ready' && (
            <div className="muted">
              {t('code.repos.indexFacts', {
                files: fmt.number(ix.files),
                symbols: fmt.number(ix.symbols),
                sha: ix.indexed_sha?.slice(0, 7) ?? '',
                at: fmt.dateTime(ix.indexed_at),
              })}
            </div>
          )}
          {ix.error && <div className="muted">{ix.error}</div>}
        </dd>
        <dt>{t('code.repos.pr')}</dt>
        <dd>
          {r.onboarding_pr.url ? (
            <a href={r.onboarding_pr.url} target="_blank" rel="noreferrer">
              #{r.onboarding_pr.number}
            </a>
          ) : null}{' '}
          {t(`code.repos.prStates.${r.onboarding_pr.status}`)}
          {r.onboarding_pr.error && <div className="muted">{r.onboarding_pr.error}</div>}
        </dd>
        {r.is_public && (
          <>
            <dt>{t('code.repos.guidelines')}</dt>
            <dd>
              {r.guidelines
                ? [r.guidelines.contributing?.path, r.guidelines.code_of_conduct?.path].filter(Boolean).join(', ') ||
                  t('code.repos.noGuidelines')
                : t('code.repos.guidelinesUnread')}
              {r.guidelines && (
                <div className="muted">{t('code.repos.readAt', { at: fmt.dateTime(r.guidelines.read_at) })}</div>
              )}
            </dd>
            <dt>{t('code.repos.labels')}</dt>
            <dd>
              {r.labels_created_at
                ? t('code.repos.labelsAt', { at: fmt.dateTime(r.labels_created_at) })
                : t('code.repos.labelsNone')}
            </dd>
          </>
        )}
        <dt>{t('code.repos.refreshedAt')}</dt>
        <dd>{fmt.dateTime(r.last_refreshed_at) || t('code.never')}</dd>
      </dl>
      <ErrorAlert error={error} />
      <div className="row">
        <Button pending={refresh.isPending} onClick={() => refresh.mutate()}>
          {t('code.repos.refresh')}
        </Button>
        <Button pending={pr.isPending} onClick={() => pr.mutate()}>
          {t('code.repos.openPr')}
        </Button>
        {r.is_public && (
          <Button pending={guidelines.isPending} onClick={() => guidelines.mutate()}>
            {t('code.repos.readGuidelines')}
          </Button>
        )}
        {r.is_public && (
          <Button pending={labels.isPending} onClick={() => labels.mutate()}>
            {t('code.repos.createLabels')}
          </Button>
        )}
      </div>
      <AgentKey repository={r} />
      <Disconnect repository={r} workspaceId={workspaceId} />
    </div>
  );
}

/** The agent key: write-only (a repository CI secret); only its last four characters come back. */
function AgentKey({ repository: r }: { repository: Repository }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [key, setKey] = useState('');
  const save = useRepositoryAction(
    r.id,
    () => data(api.PUT('/v1/repositories/{id}/agent-key', { params: { path: { id: r.id } }, body: { key } })),
    t('code.repos.keySaved'),
  );
  const submit = () => {
    save.mutate(undefined, { onSuccess: () => setKey('') });
  };
  const k = r.agent_key;
  return (
    <Form className="stack" onSubmit={submit} aria-label={t('code.repos.keyTitle', { name: r.full_name })}>
      <div className="ws-fields">
        <TextField
          label={t('code.repos.key')}
          type="password"
          autoComplete="off"
          value={key}
          onChange={(e) => setKey(e.target.value)}
          hint={
            k.last4 ? t('code.repos.keyHint', { last4: k.last4, at: fmt.dateTime(k.set_at) }) : t('code.repos.keyNone')
          }
          error={fieldError(save.error, 'key')}
        />
      </div>
      <ErrorAlert error={save.error} fields={['key']} />
      <FormActions
        submit={k.last4 ? t('code.repos.keyReplace') : t('code.repos.keySet')}
        variant="secondary"
        disabled={!key}
        pending={save.isPending}
      />
    </Form>
  );
}

function Disconnect({ repository: r, workspaceId }: { repository: Repository; workspaceId: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/repositories/{id}', { params: { path: { id: r.id } } })),
    onSuccess: () => {
      client.setQueryData(
        codeKeys.repositories(workspaceId),
        (old: { items: Repository[]; next_cursor: string | null } | undefined) =>
          old && { ...old, items: old.items.filter((x) => x.id !== r.id) },
      );
      client.removeQueries({ queryKey: codeKeys.repository(r.id) });
      void client.invalidateQueries({ queryKey: codehostKeys.all });
      void client.invalidateQueries({ queryKey: codeKeys.all });
      toast.success(t('code.repos.disconnected', { name: r.full_name }));
    },
  });
  return (
    <div>
      <ConfirmAction
        label={t('code.repos.disconnect')}
        title={t('code.repos.disconnectTitle', { name: r.full_name })}
        confirm={t('code.repos.disconnectConfirm')}
        danger
        action={remove}
      >
        <p>{t('code.repos.disconnectBody')}</p>
      </ConfirmAction>
    </div>
  );
}
