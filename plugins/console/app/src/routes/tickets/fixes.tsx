import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { fixDiffQuery, type FixAttempt, type Ticket } from '../../queries/tickets';
import { Button, ErrorState, LoadingState, useFormat } from '../../ui';
import { Card, Sha } from './card';
import type { TicketPermissions } from './permissions';
import { ApproveButton, RequestChangesButton, RejectButton, OpenPrButton, EscalatedActions } from './fix-actions';

const DiffViewer = lazy(() => import('./diff-viewer'));

/** Fix attempts, newest first, with their diff, approvals and the actions the role allows. */
export function Fixes({ ticket, can }: { ticket: Ticket; can: TicketPermissions }) {
  const { t } = useTranslation();
  if (ticket.fixes === null) return null;
  return (
    <Card title={t('ticket.fix.title')}>
      {ticket.fixes.length === 0 && <p className="muted">{t('ticket.fix.none')}</p>}
      {ticket.state === 'escalated' && can.approve && <EscalatedActions ticket={ticket} />}
      {ticket.fixes.map((a, i) => (
        <Attempt key={a.id} ticket={ticket} attempt={a} latest={i === 0} can={can} />
      ))}
    </Card>
  );
}

function Attempt({
  ticket,
  attempt: a,
  latest,
  can,
}: {
  ticket: Ticket;
  attempt: FixAttempt;
  latest: boolean;
  can: TicketPermissions;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [showDiff, setShowDiff] = useState(false);
  const diffId = `diff-${a.id}`;
  const waiting = latest && ticket.state === 'awaiting_approval' && a.status === 'verified' && !!a.pull_request;
  return (
    <article className="attempt stack" aria-label={t('ticket.fix.attempt', { number: a.number })}>
      <div className="spread">
        <h3>{t('ticket.fix.attempt', { number: a.number })}</h3>
        <span className={`badge fix-${a.status}`}>{t(`ticket.fix.statuses.${a.status}`)}</span>
      </div>
      <dl className="facts">
        <dt>{t('ticket.fix.branch')}</dt>
        <dd>
          <code className="wrap">{a.branch}</code>
        </dd>
        {a.head_sha && (
          <>
            <dt>{t('ticket.fix.head')}</dt>
            <dd>
              <Sha sha={a.head_sha} />
            </dd>
          </>
        )}
        <dt>{t('ticket.fix.checks')}</dt>
        <dd>
          {[
            t(a.verify_passed ? 'ticket.fix.verifyPassed' : 'ticket.fix.verifyNot'),
            t(
              !a.tests_ran
                ? 'ticket.fix.testsNotRun'
                : a.tests_passed
                  ? 'ticket.fix.testsPassed'
                  : 'ticket.fix.testsFailed',
            ),
          ].join(' · ')}
        </dd>
        {a.reason && (
          <>
            <dt>{t('ticket.fix.reason')}</dt>
            <dd>{t(`ticket.fix.reasons.${a.reason}`)}</dd>
          </>
        )}
        {a.reviewer_notes && (
          <>
            <dt>{t('ticket.fix.notes')}</dt>
            <dd>{a.reviewer_notes}</dd>
          </>
        )}
        {a.pull_request && (
          <>
            <dt>{t('ticket.fix.pullRequest')}</dt>
            <dd>
              <a href={a.pull_request.url} target="_blank" rel="noreferrer">
                #{a.pull_request.number}
              </a>
              {a.pull_request.state && ` · ${t(`ticket.fix.prStates.${a.pull_request.state}`)}`}
            </dd>
          </>
        )}
        <dt>{t('ticket.fix.approvals')}</dt>
        <dd>{t('ticket.fix.approvalCount', { count: a.approval_count, min: a.min_approvers })}</dd>
      </dl>
      {a.status === 'running' && (
        <p className="live" role="status">
          <span className="live-dot" aria-hidden="true" />
          {t('ticket.fix.running')}
        </p>
      )}
      {a.approvals.length > 0 && (
        <ul className="plain approvals">
          {a.approvals.map((ap) => (
            <li key={ap.id} className={ap.voided_at ? 'muted' : ''}>
              {t('ticket.fix.approvedBy', {
                role: t(`roles.${ap.role}`, { defaultValue: ap.role }),
                when: fmt.dateTime(ap.created_at),
              })}{' '}
              <Sha sha={ap.sha} />
              {ap.comment && <> — {ap.comment}</>}
              {ap.void_reason && <> ({t(`ticket.fix.voids.${ap.void_reason}`)})</>}
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        {a.diff.available ? (
          <Button aria-expanded={showDiff} aria-controls={diffId} onClick={() => setShowDiff((s) => !s)}>
            {t(showDiff ? 'ticket.fix.hideDiff' : 'ticket.fix.showDiff')}
          </Button>
        ) : (
          a.diff.unavailable && <span className="muted">{t(`ticket.fix.unavailable.${a.diff.unavailable}`)}</span>
        )}
        {waiting && can.approve && a.head_sha && <ApproveButton ticket={ticket} attempt={a} />}
        {waiting && can.work && <RequestChangesButton ticket={ticket} attempt={a} />}
        {waiting && can.approve && <RejectButton ticket={ticket} attempt={a} />}
        {latest && a.status === 'verified' && !a.pull_request && can.work && ticket.state !== 'closed' && (
          <OpenPrButton ticket={ticket} attempt={a} />
        )}
      </div>
      {showDiff && (
        <div id={diffId}>
          <DiffPanel ticketId={ticket.id} attempt={a} />
        </div>
      )}
    </article>
  );
}

function DiffPanel({ ticketId, attempt }: { ticketId: string; attempt: FixAttempt }) {
  const { t } = useTranslation();
  const diff = useQuery(fixDiffQuery(ticketId, attempt.id, attempt.head_sha));
  if (diff.isPending) return <LoadingState label={t('ticket.fix.loadingDiff')} />;
  if (diff.isError) return <ErrorState error={diff.error} retry={() => void diff.refetch()} />;
  if (!diff.data.text)
    return (
      <p className="muted">
        {diff.data.unavailable ? t(`ticket.fix.unavailable.${diff.data.unavailable}`) : t('ticket.fix.emptyDiff')}
      </p>
    );
  return (
    <div className="stack">
      {diff.data.truncated && <p className="alert alert-warning">{t('ticket.fix.truncated')}</p>}
      <Suspense fallback={<LoadingState label={t('ticket.fix.loadingDiff')} />}>
        <DiffViewer text={diff.data.text} />
      </Suspense>
    </div>
  );
}
