import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { inboxKeys, type InboundEmail, type InboundStatus } from '../../queries/inbox';
import {
  Button,
  ConfirmDialog,
  KeysetTable,
  SelectField,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';

const STATUSES: InboundStatus[] = ['processed', 'ignored', 'quarantined', 'released'];

/** The inbound log, newest first, by status; a quarantined email can be let through after confirming. */
export function InboundLog({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [status, setStatus] = useState<InboundStatus | ''>('');
  const [releasing, setReleasing] = useState<InboundEmail | null>(null);
  const query = useKeysetQuery(inboxKeys.inbound(workspaceId, status), (cursor) =>
    data(
      api.GET('/v1/channels/{workspaceId}/inbound', {
        params: { path: { workspaceId }, query: { cursor, limit: 25, ...(status ? { status } : {}) } },
      }),
    ),
  );
  const columns: Column<InboundEmail>[] = [
    { header: t('inboxSettings.inbound.received'), cell: (e) => fmt.dateTime(e.received_at) },
    {
      header: t('inboxSettings.inbound.from'),
      cell: (e) =>
        e.from_name ? (
          <>
            {e.from_name}
            <div className="muted">{e.from}</div>
          </>
        ) : (
          (e.from ?? '—')
        ),
    },
    { header: t('inboxSettings.inbound.subject'), cell: (e) => e.subject ?? t('inboxSettings.inbound.noSubject') },
    {
      header: t('inboxSettings.inbound.status'),
      cell: (e) => (
        <>
          <span className={`inbox-status inbox-status-${e.status}`}>
            {t(`inboxSettings.inbound.statuses.${e.status}`)}
          </span>
          {e.reason && <div className="muted">{t(`inboxSettings.inbound.reasons.${e.reason}`)}</div>}
          {e.status === 'quarantined' && e.signals.length > 0 && (
            <div className="muted">
              {t('inboxSettings.inbound.signals', { score: e.spam_score, signals: e.signals.join(', ') })}
            </div>
          )}
        </>
      ),
    },
    {
      header: t('inboxSettings.inbound.ticket'),
      cell: (e) =>
        e.ticket_id ? <Link to={`/tickets/${e.ticket_id}`}>{t('inboxSettings.inbound.openTicket')}</Link> : '—',
    },
    {
      header: t('inboxSettings.inbound.actions'),
      hiddenHeader: true,
      cell: (e) =>
        e.releasable && (
          <Button
            onClick={() => setReleasing(e)}
            aria-label={t('inboxSettings.inbound.releaseNamed', { subject: e.subject ?? e.email_id })}
          >
            {t('inboxSettings.inbound.release')}
          </Button>
        ),
    },
  ];
  return (
    <section className="card stack" aria-labelledby="inbox-inbound">
      <h2 id="inbox-inbound">{t('inboxSettings.inbound.title')}</h2>
      <p className="muted">{t('inboxSettings.inbound.intro')}</p>
      <div className="ws-fields">
        <SelectField
          label={t('inboxSettings.inbound.filter')}
          value={status}
          onChange={(e) => setStatus(e.target.value as InboundStatus | '')}
        >
          <option value="">{t('inboxSettings.inbound.all')}</option>
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`inboxSettings.inbound.statuses.${s}`)}
            </option>
          ))}
        </SelectField>
      </div>
      <KeysetTable
        caption={t('inboxSettings.inbound.caption')}
        columns={columns}
        query={query}
        rowKey={(e) => `${e.provider}/${e.email_id}`}
        emptyTitle={t('inboxSettings.inbound.empty')}
      />
      {releasing && <Release workspaceId={workspaceId} email={releasing} onClose={() => setReleasing(null)} />}
    </section>
  );
}

function Release({ workspaceId, email, onClose }: { workspaceId: string; email: InboundEmail; onClose: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const release = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/channels/{workspaceId}/inbound/{provider}/{emailId}/release', {
          params: { path: { workspaceId, provider: email.provider, emailId: email.email_id } },
        }),
      ),
    onSuccess: (r) => {
      onClose();
      toast.success(r.created ? t('inboxSettings.inbound.releasedNew') : t('inboxSettings.inbound.releasedJoined'));
      void client.invalidateQueries({ queryKey: inboxKeys.inboundAll(workspaceId) });
    },
  });
  return (
    <ConfirmDialog
      title={t('inboxSettings.inbound.releaseTitle')}
      confirm={t('inboxSettings.inbound.releaseConfirm')}
      pending={release.isPending}
      error={release.error}
      onConfirm={() => release.mutate()}
      onClose={onClose}
    >
      <p>
        {t('inboxSettings.inbound.releaseBody', {
          from: email.from ?? '—',
          subject: email.subject ?? t('inboxSettings.inbound.noSubject'),
        })}
      </p>
    </ConfirmDialog>
  );
}
