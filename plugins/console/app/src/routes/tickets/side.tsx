import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { subscribersQuery, useTicketAction, useTicketChange, type Ticket } from '../../queries/tickets';
import { useMe } from '../../queries/session';
import {
  Button,
  ErrorAlert,
  Form,
  FormActions,
  FormDialog,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useCopy,
  useFormat,
  useToast,
} from '../../ui';
import { Card } from './card';
import { useMembers } from './members';
import type { TicketPermissions } from './permissions';

const CLOSE_REASONS = ['resolved', 'answered', 'duplicate', 'spam', 'wont_fix', 'other'] as const;
type CloseReason = (typeof CLOSE_REASONS)[number];

/** The customer and the people who follow the ticket (addresses masked by the API). */
export function CustomerCard({ ticket, can }: { ticket: Ticket; can: TicketPermissions }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const subscribers = useQuery(subscribersQuery(ticket.id));
  const toast = useToast();
  const [email, setEmail] = useState('');
  const add = useTicketChange(ticket.id, (address: string) =>
    data(api.POST('/v1/tickets/{id}/subscribers', { params: { path: { id: ticket.id } }, body: { email: address } })),
  );
  const remove = useTicketChange(ticket.id, (subscriberId: string) =>
    data(
      api.DELETE('/v1/tickets/{id}/subscribers/{subscriberId}', { params: { path: { id: ticket.id, subscriberId } } }),
    ),
  );
  const submit = () => {
    add.mutate(email, {
      onSuccess: () => {
        setEmail('');
        void subscribers.refetch();
        toast.success(t('ticket.customer.subscribed'));
      },
    });
  };
  const active = subscribers.data?.items.filter((s) => !s.unsubscribed_at) ?? [];
  return (
    <Card title={t('ticket.customer.title')}>
      <dl className="facts">
        <dt>{t('ticket.customer.name')}</dt>
        <dd>{ticket.customer_name ?? '—'}</dd>
        <dt>{t('ticket.customer.email')}</dt>
        <dd className="wrap">{ticket.customer_email ?? '—'}</dd>
        <dt>{t('ticket.customer.language')}</dt>
        <dd>{t(`common.locales.${ticket.language}`, { defaultValue: ticket.language })}</dd>
        <dt>{t('ticket.customer.messages')}</dt>
        <dd>{fmt.number(ticket.message_count)}</dd>
      </dl>
      <h3>{t('ticket.customer.subscribers')}</h3>
      {subscribers.isError && <ErrorAlert error={subscribers.error} />}
      {active.length === 0 && subscribers.isSuccess && <p className="muted">{t('ticket.customer.noSubscribers')}</p>}
      <ul className="plain stack">
        {active.map((s) => (
          <li key={s.id} className="spread">
            <span className="wrap">
              {s.email_masked} <span className="muted">· {t(`ticket.customer.sources.${s.source}`)}</span>
            </span>
            {can.work && (
              <Button
                variant="link"
                pending={remove.isPending && remove.variables === s.id}
                onClick={() =>
                  remove.mutate(s.id, { onSuccess: () => void subscribers.refetch(), onError: (e) => toast.error(e) })
                }
                aria-label={t('ticket.customer.removeNamed', { email: s.email_masked })}
              >
                {t('ticket.customer.remove')}
              </Button>
            )}
          </li>
        ))}
      </ul>
      {can.work && (
        <Form className="stack" onSubmit={submit}>
          <ErrorAlert error={add.error} fields={['email']} />
          <TextField
            label={t('ticket.customer.addSubscriber')}
            type="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={fieldError(add.error, 'email')}
          />
          <FormActions
            submit={t('ticket.customer.subscribe')}
            variant="secondary"
            pending={add.isPending}
            disabled={!email.trim()}
          />
        </Form>
      )}
    </Card>
  );
}

/** Assign, escalate, close and reopen (owners, admins and reviewers). */
export function TeamActions({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation();
  const me = useMe();
  const members = useMembers(true);
  const toast = useToast();
  const [dialog, setDialog] = useState<'escalate' | 'close' | 'reopen' | null>(null);
  const assign = useTicketAction(ticket.id, (assignee_user_id: string | null) =>
    data(api.POST('/v1/tickets/{id}/assign', { params: { path: { id: ticket.id } }, body: { assignee_user_id } })),
  );
  const closed = ticket.state === 'closed';
  const options = members.data ?? [];
  return (
    <Card title={t('ticket.actions.title')}>
      <ErrorAlert error={assign.error} />
      <SelectField
        label={t('ticket.actions.assignee')}
        value={ticket.assignee_user_id ?? ''}
        disabled={assign.isPending}
        onChange={(e) =>
          assign.mutate(e.target.value || null, { onSuccess: () => toast.success(t('ticket.actions.assigned')) })
        }
      >
        <option value="">{t('inbox.unassigned')}</option>
        {ticket.assignee_user_id && !options.some((m) => m.id === ticket.assignee_user_id) && (
          <option value={ticket.assignee_user_id}>
            {ticket.assignee_user_id === me.data?.user.id ? me.data.user.name : ticket.assignee_user_id}
          </option>
        )}
        {options.map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </SelectField>
      <div className="row">
        {!closed && ticket.state !== 'escalated' && (
          <Button onClick={() => setDialog('escalate')}>{t('ticket.actions.escalate')}</Button>
        )}
        {!closed && (
          <Button variant="danger" onClick={() => setDialog('close')}>
            {t('ticket.actions.close')}
          </Button>
        )}
        {closed && <Button onClick={() => setDialog('reopen')}>{t('ticket.actions.reopen')}</Button>}
      </div>
      {dialog === 'escalate' && <EscalateDialog ticket={ticket} onClose={() => setDialog(null)} />}
      {dialog === 'close' && <CloseDialog ticket={ticket} onClose={() => setDialog(null)} />}
      {dialog === 'reopen' && <ReopenDialog ticket={ticket} onClose={() => setDialog(null)} />}
    </Card>
  );
}

function EscalateDialog({ ticket, onClose }: { ticket: Ticket; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <ReasonDialog
      ticket={ticket}
      title={t('ticket.actions.escalateTitle')}
      confirm={t('ticket.actions.escalateConfirm')}
      send={(reason) =>
        data(api.POST('/v1/tickets/{id}/escalate', { params: { path: { id: ticket.id } }, body: { reason } }))
      }
      onClose={onClose}
    />
  );
}

/** A ticket action that takes a reason, typed in a dialog; the dialog closes once the action is done. */
function ReasonDialog({
  ticket,
  title,
  confirm,
  send,
  onClose,
}: {
  ticket: Ticket;
  title: string;
  confirm: string;
  send: (reason: string) => Promise<Ticket>;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const [reason, setReason] = useState('');
  const run = useTicketAction(ticket.id, () => send(reason));
  return (
    <FormDialog
      title={title}
      onClose={onClose}
      onSubmit={() => run.mutate(undefined, { onSuccess: onClose })}
      submit={confirm}
      pending={run.isPending}
    >
      <ErrorAlert error={run.error} fields={['reason']} />
      <TextArea
        label={t('ticket.actions.reason')}
        value={reason}
        onChange={(e) => setReason(e.target.value)}
        error={fieldError(run.error, 'reason')}
        autoFocus
      />
    </FormDialog>
  );
}

function CloseDialog({ ticket, onClose }: { ticket: Ticket; onClose: () => void }) {
  const { t } = useTranslation();
  const [reason, setReason] = useState<CloseReason>('resolved');
  const [duplicateOf, setDuplicateOf] = useState('');
  const [comment, setComment] = useState('');
  const run = useTicketAction(ticket.id, () =>
    data(
      api.POST('/v1/tickets/{id}/close', {
        params: { path: { id: ticket.id } },
        body: {
          reason,
          comment: comment || null,
          ...(reason === 'duplicate' ? { duplicate_of_ticket_id: duplicateOf } : {}),
        },
      }),
    ),
  );
  return (
    <FormDialog
      title={t('ticket.actions.closeTitle')}
      onClose={onClose}
      onSubmit={() => run.mutate(undefined, { onSuccess: onClose })}
      submit={t('ticket.actions.closeConfirm')}
      variant="danger"
      pending={run.isPending}
    >
      <ErrorAlert error={run.error} fields={['reason', 'duplicate_of_ticket_id', 'comment']} />
      <SelectField
        label={t('ticket.actions.closeReason')}
        value={reason}
        onChange={(e) => setReason(e.target.value as CloseReason)}
        autoFocus
      >
        {CLOSE_REASONS.map((r) => (
          <option key={r} value={r}>
            {t(`ticket.actions.closeReasons.${r}`)}
          </option>
        ))}
      </SelectField>
      {reason === 'duplicate' && (
        <TextField
          label={t('ticket.actions.duplicateOf')}
          value={duplicateOf}
          onChange={(e) => setDuplicateOf(e.target.value)}
          error={fieldError(run.error, 'duplicate_of_ticket_id')}
        />
      )}
      <TextArea
        label={t('ticket.actions.comment')}
        value={comment}
        onChange={(e) => setComment(e.target.value)}
        error={fieldError(run.error, 'comment')}
      />
    </FormDialog>
  );
}

function ReopenDialog({ ticket, onClose }: { ticket: Ticket; onClose: () => void }) {
  const { t } = useTranslation();
  return (
    <ReasonDialog
      ticket={ticket}
      title={t('ticket.actions.reopenTitle')}
      confirm={t('ticket.actions.reopenConfirm')}
      send={(reason) =>
        data(
          api.POST('/v1/tickets/{id}/reopen', {
            params: { path: { id: ticket.id } },
            body: { reason: reason || null },
          }),
        )
      }
      onClose={onClose}
    />
  );
}

/** The customer's public status page: open, copy, rotate (new address) or revoke. */
export function StatusLinkCard({ ticket, can }: { ticket: Ticket; can: TicketPermissions }) {
  const { t } = useTranslation();
  const toast = useToast();
  const fmt = useFormat();
  const change = useTicketChange(ticket.id, (action: 'rotate' | 'revoke') =>
    data(api.POST('/v1/tickets/{id}/status-link', { params: { path: { id: ticket.id } }, body: { action } })),
  );
  const revoked = !!ticket.public_token_revoked_at;
  // Where the clipboard refuses, the address itself is shown to copy by hand.
  const copy = useCopy({ copied: t('ticket.status.copied'), failed: ticket.public_status_url });
  const run = (action: 'rotate' | 'revoke') =>
    change.mutate(action, {
      onSuccess: () => toast.success(t(`ticket.status.done.${action}`)),
      onError: (e) => toast.error(e),
    });
  return (
    <Card title={t('ticket.status.title')}>
      <p>{t('ticket.status.public', { state: t(`ticket.status.publicStates.${ticket.public_state}`) })}</p>
      {revoked ? (
        <p className="muted">{t('ticket.status.revoked', { when: fmt.dateTime(ticket.public_token_revoked_at) })}</p>
      ) : (
        <p>
          <a href={ticket.public_status_url} target="_blank" rel="noreferrer">
            {t('ticket.status.open')}
          </a>
        </p>
      )}
      {ticket.public_summary && (
        <p className="muted">{t('ticket.status.summary', { summary: ticket.public_summary })}</p>
      )}
      <div className="row">
        {!revoked && <Button onClick={() => void copy(ticket.public_status_url)}>{t('ticket.status.copy')}</Button>}
        {can.work && (
          <Button pending={change.isPending && change.variables === 'rotate'} onClick={() => run('rotate')}>
            {t('ticket.status.rotate')}
          </Button>
        )}
        {can.work && !revoked && (
          <Button
            variant="danger"
            pending={change.isPending && change.variables === 'revoke'}
            onClick={() => run('revoke')}
          >
            {t('ticket.status.revoke')}
          </Button>
        )}
      </div>
    </Card>
  );
}
