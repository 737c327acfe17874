import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import type { ResponseBody } from '../../api/types';
import { GROUP_STATUSES, proactiveKeys, type ErrorGroup, type GroupStatus } from '../../queries/proactive';
import { useCurrentWorkspace } from '../../queries/workspaces';
import { Button, CheckboxField, KeysetTable, TextField, useFormat, useKeysetQuery, type Column } from '../../ui';
import { StatusBadge } from './parts';
import './proactive.css';

type ListAnswer = ResponseBody<'/v1/error-groups', 'get'>;

/**
 * /error-groups (every role): the workspace's error groups, last seen first, filtered by status
 * and text; the overview above says how proactive tickets stand (threshold, monthly cap, held).
 */
export default function ErrorGroupsPage() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { workspaceId } = useCurrentWorkspace();
  const [statuses, setStatuses] = useState<GroupStatus[]>(['watching', 'ticketed']);
  const [q, setQ] = useState('');
  // Filters apply on submit: one request, not one per key.
  const [applied, setApplied] = useState({ statuses, q });
  const query = useKeysetQuery<ErrorGroup>(proactiveKeys.groups(workspaceId, applied.statuses, applied.q), (cursor) =>
    data(
      api.GET('/v1/error-groups', {
        params: {
          query: {
            cursor,
            workspace_id: workspaceId ?? undefined,
            status: applied.statuses.length ? applied.statuses : undefined,
            q: applied.q || undefined,
          },
        },
      }),
    ),
  );
  const overview = (query.data?.pages[0] as ListAnswer | undefined)?.overview;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setApplied({ statuses, q: q.trim() });
  };
  const columns: Column<ErrorGroup>[] = [
    {
      header: t('proactive.groups.error'),
      cell: (g) => (
        <div className="pa-title">
          <Link to={`/error-groups/${g.id}`}>{g.title}</Link>
          <span className="muted">
            {g.type}
            {g.release ? ` · ${g.release}` : ''}
          </span>
        </div>
      ),
    },
    { header: t('proactive.groups.status'), cell: (g) => <StatusBadge group={g} /> },
    { header: t('proactive.groups.users'), cell: (g) => fmt.number(g.affected_users) },
    { header: t('proactive.groups.events24h'), cell: (g) => fmt.number(g.events_24h) },
    {
      header: t('proactive.groups.lastSeen'),
      cell: (g) => <time dateTime={g.last_seen}>{fmt.relative(g.last_seen)}</time>,
    },
  ];
  return (
    <div className="stack">
      <h1>{t('proactive.groups.title')}</h1>
      <p className="muted">{t('proactive.groups.intro')}</p>
      {overview && (
        <section className="card" aria-labelledby="pa-overview">
          <h2 id="pa-overview" className="visually-hidden">
            {t('proactive.groups.overview')}
          </h2>
          <dl className="pa-numbers">
            {(['watching', 'ticketed', 'resolved', 'ignored', 'held'] as const).map((k) => (
              <div key={k}>
                <dt>{t(`proactive.statuses.${k}`)}</dt>
                <dd>{fmt.number(overview.counts[k])}</dd>
              </div>
            ))}
            <div>
              <dt>{t('proactive.groups.fixesThisMonth')}</dt>
              <dd>
                {t('proactive.groups.ofCap', {
                  used: fmt.number(overview.fixes_this_month),
                  cap: fmt.number(overview.monthly_fix_cap),
                })}
              </dd>
            </div>
          </dl>
          <p className="muted">
            {overview.enabled
              ? t('proactive.groups.enabled', { count: overview.threshold_users })
              : t('proactive.groups.disabled')}
            {overview.cap_reached && ` ${t('proactive.groups.capReached')}`}
          </p>
        </section>
      )}
      <form className="card stack" onSubmit={submit} aria-label={t('proactive.groups.filters')}>
        <fieldset className="pa-checks">
          <legend>{t('proactive.groups.status')}</legend>
          {GROUP_STATUSES.map((s) => (
            <CheckboxField
              key={s}
              label={t(`proactive.statuses.${s}`)}
              checked={statuses.includes(s)}
              onChange={(e) => setStatuses(e.target.checked ? [...statuses, s] : statuses.filter((x) => x !== s))}
            />
          ))}
        </fieldset>
        <div className="row">
          <TextField
            label={t('proactive.groups.search')}
            type="search"
            value={q}
            onChange={(e) => setQ(e.target.value)}
          />
        </div>
        <div>
          <Button type="submit">{t('proactive.groups.apply')}</Button>
        </div>
      </form>
      <KeysetTable
        caption={t('proactive.groups.title')}
        columns={columns}
        query={query}
        rowKey={(g) => g.id}
        emptyTitle={t('proactive.groups.empty')}
        emptyBody={
          <p>
            {t('proactive.groups.emptyBody')} <Link to="/proactive">{t('proactive.groups.toConnectors')}</Link>
          </p>
        }
      />
    </div>
  );
}
