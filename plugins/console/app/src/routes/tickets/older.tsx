import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { ticketKeys, type Draft, type Ticket, type TicketJob } from '../../queries/tickets';
import { Button, ErrorState, LoadingState } from '../../ui';

type Lists = { drafts: Draft; jobs: TicketJob };

const texts = {
  drafts: { more: 'ticket.drafts.more', older: 'ticket.drafts.older' },
  jobs: { more: 'ticket.jobs.more', older: 'ticket.jobs.older' },
} as const;

const fetchers = {
  drafts: (id: string, cursor: string) =>
    data(api.GET('/v1/tickets/{id}/drafts', { params: { path: { id }, query: { cursor } } })),
  jobs: (id: string, cursor: string) =>
    data(api.GET('/v1/tickets/{id}/jobs', { params: { path: { id }, query: { cursor } } })),
};

/**
 * The drafts or jobs beyond the ticket page's newest 50: read on request from the page's
 * `next_cursor`, a page at a time (GET /v1/tickets/{id}/drafts or /jobs).
 */
export function OlderItems<L extends keyof Lists>({
  ticket,
  list,
  render,
}: {
  ticket: Ticket;
  list: L;
  render: (item: Lists[L]) => ReactNode;
}) {
  const { t } = useTranslation();
  const [open, setOpen] = useState(false);
  const page = ticket[list];
  const from = page?.next_cursor;
  const older = useInfiniteQuery({
    queryKey: ticketKeys.older(ticket.id, list, from ?? ''),
    initialPageParam: from ?? '',
    queryFn: ({ pageParam }) =>
      fetchers[list](ticket.id, pageParam) as Promise<{ items: Lists[L][]; next_cursor: string | null }>,
    getNextPageParam: (last) => last.next_cursor ?? undefined,
    enabled: open && !!from,
  });
  if (!page || !from) return null;
  if (!open)
    return (
      <div>
        <Button onClick={() => setOpen(true)}>{t(texts[list].more, { count: page.total - page.items.length })}</Button>
      </div>
    );
  if (older.isPending) return <LoadingState />;
  if (!older.data) return <ErrorState error={older.error} retry={() => void older.refetch()} />;
  return (
    <section className="stack" aria-label={t(texts[list].older)}>
      <ul className="plain stack">
        {older.data.pages
          .flatMap((p) => p.items)
          .map((item) => (
            <li key={item.id}>{render(item)}</li>
          ))}
      </ul>
      {older.hasNextPage && (
        <div>
          <Button onClick={() => void older.fetchNextPage()} pending={older.isFetchingNextPage}>
            {t('common.loadMore')}
          </Button>
        </div>
      )}
    </section>
  );
}
