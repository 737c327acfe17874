import { useQuery } from '@tanstack/react-query';
import { useMemo, useState, type FormEvent } from 'react';
import { Link, useSearchParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import { ticketKeys, type TicketCounts, type TicketItem } from '../../queries/tickets';
import { useMe } from '../../queries/session';
import { useCurrentWorkspace } from '../../queries/workspaces';
import {
  Button,
  EmptyState,
  KeysetTable,
  SelectField,
  TextField,
  useFormat,
  useKeysetQuery,
  type Column,
} from '../../ui';
import {
  ALL_WORKSPACES,
  CATEGORIES,
  NEEDS_TEAM,
  ORIGINS,
  PRIORITIES,
  SORTS,
  STATES,
  countFilters,
  filtersFrom,
  withFilter,
} from './filters';
import { useMembers } from './members';
import { ticketPermissions } from './permissions';
import { SlaBadge } from './sla-badge';
import './tickets.css';

/** /tickets: the inbox. Filters, search and sort are in the address; pages load by keyset. */
export default function TicketList() {
  const { t } = useTranslation();
  const { workspaceId } = useCurrentWorkspace();
  const me = useMe();
  const [params, setParams] = useSearchParams();
  const filters = useMemo(() => filtersFrom(params, workspaceId), [params, workspaceId]);
  const query = useKeysetQuery<TicketItem>(ticketKeys.list(filters), (cursor) =>
    data(api.GET('/v1/tickets', { params: { query: { ...filters, cursor, limit: 50 } } })),
  );
  // The counts take the same filters but state (counted per state); under ticketKeys.lists(), so
  // they are refreshed whenever the list is.
  const countQuery = useMemo(() => countFilters(filters), [filters]);
  const counts = useQuery({
    queryKey: ticketKeys.counts(countQuery),
    queryFn: () => data(api.GET('/v1/tickets/counts', { params: { query: countQuery } })),
    enabled: !!workspaceId,
  });
  const columns = useColumns(!filters.workspace_id);
  const set = (name: string, value: string) => setParams(withFilter(params, name, value), { replace: true });
  const loaded = query.data?.pages.reduce((n, p) => n + p.items.length, 0) ?? 0;
  if (!workspaceId) {
    // Onboarding (where workspaces are made) is for owners and admins; the others wait to be given one.
    const canCreate = me.data?.user.role === 'owner' || me.data?.user.role === 'admin';
    return (
      <EmptyState title={t('tickets.noWorkspace')}>
        <p>{t(canCreate ? 'tickets.noWorkspaceBody' : 'tickets.noWorkspaceMember')}</p>
      </EmptyState>
    );
  }
  return (
    <div className="stack">
      <div className="spread">
        <h1>{t('tickets.title')}</h1>
        <div className="inbox-counts">
          {counts.data && (
            <p className="muted" data-testid="inbox-total">
              {t('inbox.total', { count: counts.data.total })} ·{' '}
              {t('inbox.totalNeedsTeam', { count: counts.data.needs_team_action })}
            </p>
          )}
          {loaded > 0 && (
            <p className="muted" aria-live="polite">
              {t(query.hasNextPage ? 'inbox.countMore' : 'inbox.count', { count: loaded })}
            </p>
          )}
        </div>
      </div>
      <Filters
        params={params}
        set={set}
        canWork={ticketPermissions(me.data).work}
        workspaceValue={params.get('workspace') ?? workspaceId ?? ''}
        counts={counts.data}
      />
      <KeysetTable
        caption={t('inbox.caption')}
        columns={columns}
        query={query}
        rowKey={(r) => r.id}
        emptyTitle={hasFilters(params) ? t('inbox.noMatch') : t('tickets.empty')}
        emptyBody={
          hasFilters(params) ? (
            <Button onClick={() => setParams(new URLSearchParams(), { replace: true })}>{t('inbox.clear')}</Button>
          ) : (
            <p>{t('tickets.emptyBody')}</p>
          )
        }
      />
    </div>
  );
}

/** "Escalated (3)": a choice with the number of tickets it would show, when known. */
const withCount = (text: string, n: number | undefined) => (n === undefined ? text : `${text} (${n})`);

const hasFilters = (params: URLSearchParams) => [...params.keys()].some((k) => k !== 'sort' && k !== 'workspace');

function useColumns(showWorkspace: boolean): Column<TicketItem>[] {
  const { t } = useTranslation();
  const fmt = useFormat();
  return useMemo(() => {
    const cols: Column<TicketItem>[] = [
      {
        header: t('tickets.subject'),
        cell: (r) => (
          <div className="ticket-cell">
            <Link to={`/tickets/${r.id}`} className="ticket-link">
              {r.subject || t('inbox.noSubject')}
            </Link>
            <span className="muted">{r.customer_name ?? r.customer_email ?? ''}</span>
          </div>
        ),
      },
      {
        header: t('tickets.state'),
        cell: (r) => (
          <div className="row">
            <span className={`badge state-${r.state}`}>{t(`tickets.states.${r.state}`)}</span>
            {r.needs_team_action && <span className="badge badge-attention">{t('inbox.needsTeam')}</span>}
          </div>
        ),
      },
      {
        header: t('tickets.priority'),
        cell: (r) => <span className={`priority priority-${r.priority}`}>{t(`tickets.priorities.${r.priority}`)}</span>,
      },
      { header: t('inbox.category'), cell: (r) => t(`inbox.categories.${r.category}`) },
      {
        header: t('inbox.sla.header'),
        cell: (r) => (r.state === 'closed' || r.state === 'customer_notified' ? null : <SlaBadge due={r.sla_due_at} />),
      },
      {
        header: t('tickets.updated'),
        cell: (r) => (
          <time dateTime={r.updated_at} title={fmt.dateTime(r.updated_at)}>
            {fmt.relative(r.updated_at)}
          </time>
        ),
      },
    ];
    if (showWorkspace)
      cols.splice(1, 0, {
        header: t('inbox.workspace'),
        cell: (r) => (r.client_name ? `${r.workspace_name} (${r.client_name})` : r.workspace_name),
      });
    return cols;
    // fmt is a new object each render, but what it formats changes with the language only.
  }, [t, fmt.locale, showWorkspace]);
}

function Filters({
  params,
  set,
  canWork,
  workspaceValue,
  counts,
}: {
  params: URLSearchParams;
  set: (name: string, value: string) => void;
  canWork: boolean;
  workspaceValue: string;
  /** The counts of the other filters, shown next to each state (absent while they load). */
  counts: TicketCounts | undefined;
}) {
  const { t } = useTranslation();
  const me = useMe();
  const members = useMembers(canWork);
  const workspaces = me.data?.workspaces.filter((w) => !w.archived_at) ?? [];
  const one = (name: string, label: string, values: readonly string[], text: (v: string) => string, any: string) => (
    <SelectField label={label} value={params.get(name) ?? ''} onChange={(e) => set(name, e.target.value)}>
      <option value="">{any}</option>
      {values.map((v) => (
        <option key={v} value={v}>
          {text(v)}
        </option>
      ))}
    </SelectField>
  );
  return (
    <div className="card stack inbox-filters">
      {/* Keyed by the address's q: clearing the filters or going Back empties or refills the box. */}
      <SearchForm key={params.get('q') ?? ''} initial={params.get('q') ?? ''} onSearch={(q) => set('q', q)} />
      <div className="filters">
        {workspaces.length > 1 && (
          <SelectField
            label={t('inbox.workspace')}
            value={workspaceValue}
            onChange={(e) => set('workspace', e.target.value)}
          >
            <option value={ALL_WORKSPACES}>{t('inbox.allWorkspaces')}</option>
            {workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </SelectField>
        )}
        {one(
          'state',
          t('tickets.state'),
          STATES,
          (v) => withCount(t(`tickets.states.${v}`), counts?.by_state[v as (typeof STATES)[number]]),
          withCount(t('inbox.any'), counts?.total),
        )}
        {one(
          'needs_team',
          t('inbox.needsTeamFilter'),
          NEEDS_TEAM,
          (v) => t(`inbox.needsTeamValues.${v}`),
          t('inbox.any'),
        )}
        {one('origin', t('inbox.origin'), ORIGINS, (v) => t(`inbox.origins.${v}`), t('inbox.any'))}
        {one('priority', t('tickets.priority'), PRIORITIES, (v) => t(`tickets.priorities.${v}`), t('inbox.any'))}
        {one('category', t('inbox.category'), CATEGORIES, (v) => t(`inbox.categories.${v}`), t('inbox.any'))}
        <SelectField
          label={t('inbox.assignee')}
          value={params.get('assignee') ?? ''}
          onChange={(e) => set('assignee', e.target.value)}
        >
          <option value="">{t('inbox.any')}</option>
          <option value="me">{t('inbox.assignedToMe')}</option>
          <option value="unassigned">{t('inbox.unassigned')}</option>
          {members.data?.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label={t('inbox.sort')}
          value={params.get('sort') ?? 'newest'}
          onChange={(e) => set('sort', e.target.value === 'newest' ? '' : e.target.value)}
        >
          {SORTS.map((v) => (
            <option key={v} value={v}>
              {t(`inbox.sorts.${v}`)}
            </option>
          ))}
        </SelectField>
      </div>
    </div>
  );
}

function SearchForm({ initial, onSearch }: { initial: string; onSearch: (q: string) => void }) {
  const { t } = useTranslation();
  const [q, setQ] = useState(initial);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSearch(q.trim());
  };
  return (
    <form role="search" className="search-row" onSubmit={submit} aria-label={t('inbox.search')}>
      <TextField
        label={t('inbox.search')}
        type="search"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        placeholder={t('inbox.searchHint')}
      />
      <Button type="submit">{t('inbox.searchButton')}</Button>
    </form>
  );
}
