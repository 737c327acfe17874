import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useInfiniteQuery, type QueryKey } from '@tanstack/react-query';
import { Button } from './button';
import { ErrorState } from './errors';
import { EmptyState, LoadingState } from './states';

/** One page of a list operation: `{items, next_cursor}` (null at the end). */
export interface Page<T> {
  items: T[];
  next_cursor: string | null;
}

/**
 * A list read with keyset paging: `fetchPage(cursor)` calls the list operation with `cursor`
 * (undefined for the first page); "Load more" asks for the next one.
 */
export function useKeysetQuery<T>(queryKey: QueryKey, fetchPage: (cursor: string | undefined) => Promise<Page<T>>) {
  return useInfiniteQuery({
    queryKey,
    initialPageParam: undefined as string | undefined,
    queryFn: ({ pageParam }) => fetchPage(pageParam),
    getNextPageParam: (last) => last.next_cursor ?? undefined,
  });
}

export interface Column<T> {
  header: string;
  cell: (row: T) => ReactNode;
  /** Visually hidden header (e.g. a column of actions). */
  hiddenHeader?: boolean;
}

export function KeysetTable<T>({
  caption,
  columns,
  query,
  rowKey,
  emptyTitle,
  emptyBody,
}: {
  caption: string;
  columns: Column<T>[];
  query: ReturnType<typeof useKeysetQuery<T>>;
  rowKey: (row: T) => string;
  emptyTitle: string;
  emptyBody?: ReactNode;
}) {
  const { t } = useTranslation();
  if (query.isPending) return <LoadingState />;
  // A failed first page has no data; a failed "Load more" keeps the rows already shown.
  const pages = query.data?.pages;
  if (!pages) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  const rows = pages.flatMap((p) => p.items);
  if (rows.length === 0) return <EmptyState title={emptyTitle}>{emptyBody}</EmptyState>;
  return (
    <div className="stack">
      <DataTable caption={caption} columns={columns} rows={rows} rowKey={rowKey} />
      {query.isFetchNextPageError && <ErrorState error={query.error} retry={() => void query.fetchNextPage()} />}
      {query.hasNextPage && (
        <div className="row">
          <Button onClick={() => void query.fetchNextPage()} pending={query.isFetchingNextPage}>
            {t('common.loadMore')}
          </Button>
        </div>
      )}
    </div>
  );
}

/** A table of rows already at hand, each column a header and a cell (KeysetTable pages into one). */
export function DataTable<T>({
  caption,
  columns,
  rows,
  rowKey,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
}) {
  return (
    // Focusable, so a table wider than a phone scrolls by keyboard too (rows may hold no link).
    <div className="table-wrap" role="region" aria-label={caption} tabIndex={0}>
      <table>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col">
                {c.hiddenHeader ? <span className="visually-hidden">{c.header}</span> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.header}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
