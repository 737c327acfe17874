import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { LIVE_INTERVAL_MS, ticketKeys, type Ticket, type TicketJob } from '../../queries/tickets';
import { Button, ErrorState, LoadingState, useFormat } from '../../ui';
import { Card } from './card';
import { OlderItems } from './older';

const atWork = (j: TicketJob) => j.status === 'queued' || j.status === 'running';

/** The ticket's diagnosis and fix jobs; a job's log is read on demand and follows a running job. */
export function Jobs({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation();
  if (!ticket.jobs) return null;
  return (
    <Card title={t('ticket.jobs.title')}>
      {ticket.jobs.items.length === 0 && <p className="muted">{t('ticket.jobs.none')}</p>}
      <ul className="plain stack">
        {ticket.jobs.items.map((j) => (
          <li key={j.id}>
            <Job ticketId={ticket.id} job={j} />
          </li>
        ))}
      </ul>
      <OlderItems ticket={ticket} list="jobs" render={(j) => <Job ticketId={ticket.id} job={j} />} />
    </Card>
  );
}

function Job({ ticketId, job: j }: { ticketId: string; job: TicketJob }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [open, setOpen] = useState(false);
  const logId = `log-${j.id}`;
  return (
    <div className="job stack">
      <div className="spread">
        <strong>
          {t(`ticket.jobs.kinds.${j.kind}`)} · {j.mode}
        </strong>
        <span className={`badge job-${j.status}`}>
          {atWork(j) && <span className="live-dot" aria-hidden="true" />}
          {t(`ticket.jobs.statuses.${j.status}`)}
        </span>
      </div>
      <p className="muted">
        {t('ticket.jobs.summary', {
          attempts: j.attempts,
          max: j.max_attempts,
          cost: fmt.usd(j.cost_usd),
          when: fmt.dateTime(j.finished_at ?? j.started_at ?? j.created_at),
        })}
      </p>
      {j.error_code && (
        <p className="error">
          {j.error_code}
          {j.error_detail ? `: ${j.error_detail}` : ''}
        </p>
      )}
      <div>
        <Button variant="link" aria-expanded={open} aria-controls={logId} onClick={() => setOpen((o) => !o)}>
          {t(open ? 'ticket.jobs.hideLog' : 'ticket.jobs.showLog')}
        </Button>
      </div>
      {open && (
        <div id={logId}>
          <JobLog ticketId={ticketId} job={j} />
        </div>
      )}
    </div>
  );
}

function JobLog({ ticketId, job }: { ticketId: string; job: TicketJob }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const events = useInfiniteQuery({
    queryKey: ticketKeys.events(ticketId, job.id),
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) =>
      data(
        api.GET('/v1/tickets/{id}/jobs/{jobId}/events', {
          params: { path: { id: ticketId, jobId: job.id }, query: { cursor: pageParam, limit: 200 } },
        }),
      ),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    // A running job's log grows: read again while it runs (the ticket's own poll says when it ends).
    refetchInterval: atWork(job) ? LIVE_INTERVAL_MS : false,
  });
  if (events.isPending) return <LoadingState />;
  if (!events.data) return <ErrorState error={events.error} retry={() => void events.refetch()} />;
  const items = events.data.pages.flatMap((p) => p.items);
  return (
    <div className="stack">
      {items.length === 0 ? (
        <p className="muted">{t('ticket.jobs.noEvents')}</p>
      ) : (
        <ol className="job-log" aria-label={t('ticket.jobs.log')} tabIndex={0}>
          {items.map((e) => (
            <li key={e.id} className={`log-${e.level}`}>
              <time dateTime={e.created_at}>{fmt.date(e.created_at, { timeStyle: 'medium' })}</time>{' '}
              <span className="log-type">{e.type}</span> {e.message}
            </li>
          ))}
        </ol>
      )}
      {events.hasNextPage && (
        <div>
          <Button onClick={() => void events.fetchNextPage()} pending={events.isFetchingNextPage}>
            {t('common.loadMore')}
          </Button>
        </div>
      )}
    </div>
  );
}
