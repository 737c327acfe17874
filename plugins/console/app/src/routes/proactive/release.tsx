import { useState } from 'react';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { releaseKeys, releaseQuery } from '../../queries/proactive';
import { useMe } from '../../queries/session';
import { Button, ErrorState, Form, LoadingState, TextField, fieldError, useFormat, useToast } from '../../ui';
import { ActionError } from './parts';
import './proactive.css';

/** /releases/{id}: a release's steps, CI, tickets and changelog; a failed one is resumed at the step that stopped. */
export default function ReleasePage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const fmt = useFormat();
  const me = useMe();
  const release = useQuery(releaseQuery(id));
  if (release.isPending) return <LoadingState />;
  if (release.isError) return <ErrorState error={release.error} retry={() => void release.refetch()} />;
  const r = release.data;
  const approver = me.data ? ['owner', 'admin', 'reviewer'].includes(me.data.user.role) : false;
  return (
    <div className="stack">
      <Link to="/releases">{t('proactive.releases.back')}</Link>
      <div className="spread">
        <h1>{r.version ?? r.tag ?? t('proactive.releases.noVersion')}</h1>
        <span className={`badge pa-status pa-release-${r.status}`}>{t(`proactive.releases.statuses.${r.status}`)}</span>
      </div>
      <section className="card stack" aria-labelledby="pa-release-facts">
        <h2 id="pa-release-facts">{t('proactive.releases.facts')}</h2>
        <dl className="pa-facts">
          <dt>{t('proactive.releases.kind')}</dt>
          <dd>
            {t(`proactive.releases.kinds.${r.kind}`)} · {r.strategy}
          </dd>
          {r.tag && (
            <>
              <dt>{t('proactive.releases.tag')}</dt>
              <dd>
                <code>{r.tag}</code>
              </dd>
            </>
          )}
          {r.merge_sha && (
            <>
              <dt>{t('proactive.releases.commit')}</dt>
              <dd>
                <code>{r.merge_sha.slice(0, 12)}</code>
              </dd>
            </>
          )}
          <dt>{t('proactive.releases.ci')}</dt>
          <dd>{r.ci_state ? t(`proactive.releases.ciStates.${r.ci_state}`) : '–'}</dd>
          {r.release_url && (
            <>
              <dt>{t('proactive.releases.page')}</dt>
              <dd>
                <a href={r.release_url} target="_blank" rel="noreferrer">
                  {r.release_url}
                </a>
              </dd>
            </>
          )}
          {r.kind === 'batched' && (
            <>
              <dt>{t('proactive.releases.approvals')}</dt>
              <dd>{t('proactive.releases.approvalsValue', { n: r.approvals, min: r.min_approvers })}</dd>
            </>
          )}
          <dt>{t('proactive.releases.created')}</dt>
          <dd>{fmt.dateTime(r.created_at)}</dd>
          {r.released_at && (
            <>
              <dt>{t('proactive.releases.released')}</dt>
              <dd>{fmt.dateTime(r.released_at)}</dd>
            </>
          )}
        </dl>
      </section>
      {r.status === 'failed' && (
        <Failed
          releaseId={r.id}
          step={r.failed_step}
          code={r.error_code}
          detail={r.error_detail}
          canRetry={approver}
          tagged={!!r.tag}
        />
      )}
      <section className="card stack" aria-labelledby="pa-release-tickets">
        <h2 id="pa-release-tickets">{t('proactive.releases.tickets')}</h2>
        {r.tickets.length === 0 ? (
          <p className="muted">{t('proactive.releases.noTickets')}</p>
        ) : (
          <ul>
            {r.tickets.map((tk) => (
              <li key={tk.ticket_id}>
                <Link to={`/tickets/${tk.ticket_id}`}>{tk.subject}</Link>
                {tk.state && <span className="muted"> · {tk.state}</span>}
              </li>
            ))}
          </ul>
        )}
      </section>
      {r.changelog && (
        <section className="card stack" aria-labelledby="pa-release-changelog">
          <h2 id="pa-release-changelog">{t('proactive.releases.changelog')}</h2>
          <pre className="pa-pre">{r.changelog}</pre>
        </section>
      )}
    </div>
  );
}

/** Where it stopped and why; retry resumes there (a version can be set while nothing is tagged yet). */
function Failed({
  releaseId,
  step,
  code,
  detail,
  canRetry,
  tagged,
}: {
  releaseId: string;
  step: string | null;
  code: string | null;
  detail: string | null;
  canRetry: boolean;
  tagged: boolean;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [version, setVersion] = useState('');
  const retry = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/releases/{id}/retry', {
          params: { path: { id: releaseId } },
          body: version.trim() ? { version: version.trim() } : {},
        }),
      ),
    onSuccess: (next) => {
      client.setQueryData(releaseKeys.detail(releaseId), next);
      void client.invalidateQueries({ queryKey: [...releaseKeys.all, 'list'] });
      toast.success(t('proactive.releases.retried'));
    },
  });
  return (
    <section className="card stack" aria-labelledby="pa-release-failed">
      <h2 id="pa-release-failed">{t('proactive.releases.failedTitle')}</h2>
      <div className="alert alert-error" role="note">
        <strong>
          {step
            ? t('proactive.releases.stoppedAt', {
                step: t(`proactive.releases.statuses.${step}`, { defaultValue: step }),
              })
            : t('proactive.releases.stopped')}
        </strong>
        {detail && <div>{detail}</div>}
        {code && <div className="code">{t('errors.code', { code })}</div>}
      </div>
      {canRetry && (
        <Form className="row pa-inline" onSubmit={() => retry.mutate()}>
          {!tagged && (
            <TextField
              label={t('proactive.releases.versionOptional')}
              value={version}
              onChange={(e) => setVersion(e.target.value)}
              error={fieldError(retry.error, 'version')}
            />
          )}
          <Button type="submit" variant="primary" pending={retry.isPending}>
            {t('proactive.releases.retry')}
          </Button>
        </Form>
      )}
      <ActionError error={retry.error} fields={['version']} />
    </section>
  );
}
