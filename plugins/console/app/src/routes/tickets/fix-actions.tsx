/** The actions on a fix attempt (approve at its SHA, request changes, reject, open the pull request) and on an escalated ticket. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { ticketKeys, useTicketAction, type FixAttempt, type Ticket } from '../../queries/tickets';
import { Button, CheckboxField, ErrorAlert, FormDialog, TextArea, TextField, fieldError, useToast } from '../../ui';
import { shortSha } from './card';

/** After a refusal such as 409 sha_mismatch, the page is read again so the new head shows. */
function useRefreshOnError(ticketId: string) {
  const client = useQueryClient();
  return () => void client.invalidateQueries({ queryKey: ticketKeys.detail(ticketId) });
}

export function ApproveButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
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
      <FormDialog
        open={open}
        title={t('ticket.fix.approveTitle', { sha: shortSha(sha) })}
        onClose={() => setOpen(false)}
        onSubmit={submit}
        submit={t('ticket.fix.approveConfirm', { sha: shortSha(sha) })}
        pending={approve.isPending}
        autoFocus
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
      </FormDialog>
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
      <FormDialog
        open={open}
        title={title}
        onClose={() => setOpen(false)}
        onSubmit={() =>
          run.mutate(comment, {
            onSuccess: () => {
              setOpen(false);
              toast.success(done);
            },
            onError: refresh,
          })
        }
        submit={confirm}
        variant={variant === 'danger' ? 'danger' : 'primary'}
        pending={run.isPending}
        disabled={required && !comment.trim()}
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
      </FormDialog>
    </>
  );
}

export function RequestChangesButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
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

export function RejectButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
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

export function OpenPrButton({ ticket, attempt }: { ticket: Ticket; attempt: FixAttempt }) {
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
      <FormDialog
        open={open}
        title={t('ticket.fix.openPr')}
        onClose={() => setOpen(false)}
        onSubmit={() =>
          run.mutate(undefined, {
            onSuccess: () => {
              setOpen(false);
              toast.success(t('ticket.fix.prOpened'));
            },
          })
        }
        submit={t('ticket.fix.openPrConfirm')}
        pending={run.isPending}
        autoFocus
      >
        <ErrorAlert error={run.error} />
        <CheckboxField label={t('ticket.fix.asDraft')} checked={draft} onChange={(e) => setDraft(e.target.checked)} />
      </FormDialog>
    </>
  );
}

/**
 * An escalated ticket: fix it in the managed sandbox (one fix credit), or send its verified fix
 * whose release stopped before the merge back to approval (approver roles).
 */
export function EscalatedActions({ ticket }: { ticket: Ticket }) {
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
