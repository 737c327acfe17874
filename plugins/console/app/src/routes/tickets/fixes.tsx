import { lazy, Suspense, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { fixDiffQuery, ticketKeys, useTicketAction, type FixAttempt, type Ticket } from '../../queries/tickets';
import {
  Button,
  CheckboxField,
  Dialog,
  ErrorAlert,
  ErrorState,
  LoadingState,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { Card, Sha, shortSha } from './card';
import type { TicketPermissions } from './permissions';

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

/** After a refusal such as 409 sha_mismatch, the page is read again so the new head shows. */
function useRefreshOnError(ticketId: string) {
  const client = useQueryClient();
  return () => void client.invalidateQueries({ queryKey: ticketKeys.detail(ticketId) });
}

function ApproveButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
  const { t } = useTranslation();
  const toast = useToast();
  const refresh = useRefreshOnError(ticket.id);
  const [open, setOpen] = useState(false);
  const [comment, setComment] = useState('');
  const [summary, setSummary] = useState(ticket.public_summary ?? ticket.diagnosis?.public_summary ?? '');
  const [version, setVersion] = useState('');
  const sha = attempt.head_sha!;
  const approve = useTicketAction(ticket.id, () =>
    data(
      api.POST('/v1/tickets/{id}/approve', {
        params: { path: { id: ticket.id } },
        body: {
          fix_attempt_id: attempt.id,
          approved_sha: sha,
          comment: comment || null,
          public_summary: summary || null,
          version: version || null,
        },
      }),
    ),
  );
  const submit = () =>
    approve.mutate(undefined, {
      onSuccess: () => {
        setOpen(false);
        toast.success(t('ticket.fix.approved'));
      },
      onError: refresh,
    });
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        {t('ticket.fix.approveAt', { sha: shortSha(sha) })}
      </Button>
      <Dialog open={open} title={t('ticket.fix.approveTitle', { sha: shortSha(sha) })} onClose={() => setOpen(false)}>
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <p>{t('ticket.fix.approveBody')}</p>
          <p>
            <code className="wrap">{sha}</code>
          </p>
          <ErrorAlert error={approve.error} fields={['comment', 'public_summary', 'version']} />
          <TextField
            label={t('ticket.fix.publicSummary')}
            hint={t('ticket.fix.publicSummaryHint')}
            value={summary}
            onChange={(e) => setSummary(e.target.value)}
            error={fieldError(approve.error, 'public_summary')}
          />
          <TextArea
            label={t('ticket.fix.comment')}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            error={fieldError(approve.error, 'comment')}
          />
          <TextField
            label={t('ticket.fix.version')}
            hint={t('ticket.fix.versionHint')}
            value={version}
            onChange={(e) => setVersion(e.target.value)}
            error={fieldError(approve.error, 'version')}
          />
          <div className="row">
            <Button type="submit" variant="primary" pending={approve.isPending} autoFocus>
              {t('ticket.fix.approveConfirm', { sha: shortSha(sha) })}
            </Button>
            <Button onClick={() => setOpen(false)}>{t('common.cancel')}</Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

/** A button that opens a dialog with one comment and calls a fix operation with the attempt's id. */
function CommentAction({
  ticket,
  label,
  title,
  confirm,
  required,
  variant,
  call,
  done,
}: {
  ticket: Ticket;
  label: string;
  title: string;
  confirm: string;
  required: boolean;
  variant?: 'danger' | 'secondary';
  call: (comment: string) => Promise<Ticket>;
  done: string;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const refresh = useRefreshOnError(ticket.id);
  const [open, setOpen] = useState(false);
  const [comment, setComment] = useState('');
  const run = useTicketAction(ticket.id, call);
  return (
    <>
      <Button variant={variant} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Dialog open={open} title={title} onClose={() => setOpen(false)}>
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            run.mutate(comment, {
              onSuccess: () => {
                setOpen(false);
                toast.success(done);
              },
              onError: refresh,
            });
          }}
        >
          <ErrorAlert error={run.error} fields={['comment']} />
          <TextArea
            label={t(required ? 'ticket.fix.commentRequired' : 'ticket.fix.comment')}
            value={comment}
            onChange={(e) => setComment(e.target.value)}
            error={fieldError(run.error, 'comment')}
            required={required}
            autoFocus
          />
          <div className="row">
            <Button
              type="submit"
              variant={variant === 'danger' ? 'danger' : 'primary'}
              pending={run.isPending}
              disabled={required && !comment.trim()}
            >
              {confirm}
            </Button>
            <Button onClick={() => setOpen(false)}>{t('common.cancel')}</Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

function RequestChangesButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
  const { t } = useTranslation();
  return (
    <CommentAction
      ticket={ticket}
      label={t('ticket.fix.requestChanges')}
      title={t('ticket.fix.requestChangesTitle')}
      confirm={t('ticket.fix.requestChangesConfirm')}
      required
      done={t('ticket.fix.changesRequested')}
      call={(comment) =>
        data(
          api.POST('/v1/tickets/{id}/request-changes', {
            params: { path: { id: ticket.id } },
            body: { fix_attempt_id: attempt.id, comment },
          }),
        )
      }
    />
  );
}

function RejectButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
  const { t } = useTranslation();
  return (
    <CommentAction
      ticket={ticket}
      label={t('ticket.fix.reject')}
      title={t('ticket.fix.rejectTitle')}
      confirm={t('ticket.fix.rejectConfirm')}
      required={false}
      variant="danger"
      done={t('ticket.fix.rejected')}
      call={(comment) =>
        data(
          api.POST('/v1/tickets/{id}/reject', {
            params: { path: { id: ticket.id } },
            body: { fix_attempt_id: attempt.id, comment: comment || null },
          }),
        )
      }
    />
  );
}

function OpenPrButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState(false);
  const run = useTicketAction(ticket.id, () =>
    data(
      api.POST('/v1/tickets/{id}/open-pr', {
        params: { path: { id: ticket.id } },
        body: { fix_attempt_id: attempt.id, draft },
      }),
    ),
  );
  return (
    <>
      <Button variant="primary" onClick={() => setOpen(true)}>
        {t('ticket.fix.openPr')}
      </Button>
      <Dialog open={open} title={t('ticket.fix.openPr')} onClose={() => setOpen(false)}>
        <form
          className="stack"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            run.mutate(undefined, {
              onSuccess: () => {
                setOpen(false);
                toast.success(t('ticket.fix.prOpened'));
              },
            });
          }}
        >
          <ErrorAlert error={run.error} />
          <CheckboxField label={t('ticket.fix.asDraft')} checked={draft} onChange={(e) => setDraft(e.target.checked)} />
          <div className="row">
            <Button type="submit" variant="primary" pending={run.isPending} autoFocus>
              {t('ticket.fix.openPrConfirm')}
            </Button>
            <Button onClick={() => setOpen(false)}>{t('common.cancel')}</Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

/**
 * An escalated ticket: fix it in the managed sandbox (one fix credit), or send its verified fix
 * whose release stopped before the merge back to approval (approver roles).
 */
function EscalatedActions({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation();
  const toast = useToast();
  const latest = ticket.fixes?.[0];
  const managed = useTicketAction(ticket.id, () =>
    data(api.POST('/v1/tickets/{id}/fix-in-managed', { params: { path: { id: ticket.id } } })),
  );
  const canGoBack = latest && latest.status === 'verified' && latest.pull_request?.state === 'open';
  return (
    <div className="stack">
      <ErrorAlert error={managed.error} />
      <div className="row">
        <Button
          pending={managed.isPending}
          onClick={() => managed.mutate(undefined, { onSuccess: () => toast.success(t('ticket.fix.managedQueued')) })}
        >
          {t('ticket.fix.fixInManaged')}
        </Button>
        {canGoBack && (
          <CommentAction
            ticket={ticket}
            label={t('ticket.fix.backToApproval')}
            title={t('ticket.fix.backToApproval')}
            confirm={t('ticket.fix.backToApprovalConfirm')}
            required={false}
            done={t('ticket.fix.backToApprovalDone')}
            call={(comment) =>
              data(
                api.POST('/v1/tickets/{id}/back-to-approval', {
                  params: { path: { id: ticket.id } },
                  body: { fix_attempt_id: latest.id, comment: comment || null },
                }),
              )
            }
          />
        )}
      </div>
      <p className="muted">{t('ticket.fix.fixInManagedHint')}</p>
    </div>
  );
}
