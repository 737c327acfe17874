import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import { useTicketAction, useTicketChange, type Ticket, type TicketRelease } from '../../queries/tickets';
import { ErrorAlert, Form, FormActions, Progress, TextField, fieldError, useFormat, useToast } from '../../ui';
import { Card, Sha } from './card';
import type { TicketPermissions } from './permissions';

const STEPS = ['merging', 'tagging', 'releasing', 'notifying'] as const;

/** How far the release went: 0 before the merge … 4 once released. */
function stepsDone(r: TicketRelease): number {
  if (r.status === 'released') return STEPS.length;
  const at = r.status === 'failed' ? r.failed_step : r.step;
  if (at === 'waiting_version') return 1;
  const i = STEPS.indexOf(at as (typeof STEPS)[number]);
  return i < 0 ? 0 : i;
}

/** The release of the approved fix: merge, tag, code-host release, notice; retry where it stopped. */
export function ReleaseProgress({ ticket, can }: { ticket: Ticket; can: TicketPermissions }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const r = ticket.release;
  if (!r) return null;
  const done = stepsDone(r);
  return (
    <Card title={t('ticket.release.title')}>
      <p>
        <span className={`badge release-${r.status}`}>{t(`ticket.release.statuses.${r.status}`)}</span>
        {r.kind === 'batched' && <span className="muted"> · {t('ticket.release.batched')}</span>}
      </p>
      <Progress label={t('ticket.release.progress', { done, total: STEPS.length })} value={done} max={STEPS.length} />
      <ol className="release-steps">
        {STEPS.map((s, i) => {
          const state =
            i < done
              ? 'done'
              : r.status === 'failed' && i === done
                ? 'failed'
                : i === done && r.status !== 'proposed' && r.status !== 'batched'
                  ? 'current'
                  : 'todo';
          return (
            <li key={s} className={`step-${state}`} aria-current={state === 'current' ? 'step' : undefined}>
              {t(`ticket.release.steps.${s}`)}{' '}
              <span className="visually-hidden">({t(`ticket.release.stepStates.${state}`)})</span>
            </li>
          );
        })}
      </ol>
      <dl className="facts">
        {r.version && (
          <>
            <dt>{t('ticket.release.version')}</dt>
            <dd>
              {r.version}
              {r.tag && ` (${r.tag})`}
            </dd>
          </>
        )}
        {r.approved_sha && (
          <>
            <dt>{t('ticket.release.approvedSha')}</dt>
            <dd>
              <Sha sha={r.approved_sha} />
            </dd>
          </>
        )}
        {r.merge_sha && (
          <>
            <dt>{t('ticket.release.mergeSha')}</dt>
            <dd>
              <Sha sha={r.merge_sha} />
            </dd>
          </>
        )}
        {r.ci_state && (
          <>
            <dt>{t('ticket.release.ci')}</dt>
            <dd>{t(`ticket.release.ciStates.${r.ci_state}`)}</dd>
          </>
        )}
        <dt>{t('ticket.release.notice')}</dt>
        <dd>
          {r.notice_sent
            ? t('ticket.release.noticeSent', { when: fmt.dateTime(r.notice_sent_at) })
            : t('ticket.release.noticeNotYet')}
        </dd>
        {r.url && (
          <>
            <dt>{t('ticket.release.link')}</dt>
            <dd>
              <a href={r.url} target="_blank" rel="noreferrer">
                {r.tag ?? r.version ?? r.url}
              </a>
            </dd>
          </>
        )}
      </dl>
      {r.status === 'failed' && (
        <div className="alert alert-error" role="alert">
          <strong>
            {t('ticket.release.failed', {
              step: r.failed_step ? t(`ticket.release.steps.${r.failed_step}`, { defaultValue: r.failed_step }) : '',
            })}
          </strong>
          {r.error_detail && <div>{r.error_detail}</div>}
          {r.error_code && <div className="code">{t('errors.code', { code: r.error_code })}</div>}
        </div>
      )}
      {r.status === 'failed' && can.approve && <RetryForm ticket={ticket} />}
      {r.status === 'waiting_version' && can.approve && <VersionForm ticket={ticket} release={r} />}
    </Card>
  );
}

function RetryForm({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [version, setVersion] = useState('');
  const retry = useTicketAction(ticket.id, () =>
    data(
      api.POST('/v1/tickets/{id}/release/retry', {
        params: { path: { id: ticket.id } },
        body: { version: version || null },
      }),
    ),
  );
  const submit = () => {
    retry.mutate(undefined, { onSuccess: () => toast.success(t('ticket.release.retried')) });
  };
  return (
    <Form className="stack" onSubmit={submit}>
      <ErrorAlert error={retry.error} fields={['version']} />
      <TextField
        label={t('ticket.fix.version')}
        hint={t('ticket.release.retryVersionHint')}
        value={version}
        onChange={(e) => setVersion(e.target.value)}
        error={fieldError(retry.error, 'version')}
      />
      <FormActions submit={t('ticket.release.retry')} pending={retry.isPending} />
    </Form>
  );
}

function VersionForm({ ticket, release }: { ticket: Ticket; release: TicketRelease }) {
  const { t } = useTranslation();
  const [version, setVersion] = useState('');
  const set = useTicketChange(ticket.id, () =>
    data(api.POST('/v1/releases/{id}/version', { params: { path: { id: release.release_id } }, body: { version } })),
  );
  return (
    <Form className="stack" onSubmit={() => set.mutate(undefined)}>
      <ErrorAlert error={set.error} fields={['version']} />
      <TextField
        label={t('ticket.release.setVersion')}
        value={version}
        onChange={(e) => setVersion(e.target.value)}
        error={fieldError(set.error, 'version')}
      />
      <FormActions submit={t('ticket.release.setVersionConfirm')} pending={set.isPending} disabled={!version.trim()} />
    </Form>
  );
}
