import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import { releaseKeys, type Release } from '../../queries/proactive';
import { useCurrentWorkspace } from '../../queries/workspaces';
import { KeysetTable, SelectField, useFormat, useKeysetQuery, type Column } from '../../ui';
import './proactive.css';

export const RELEASE_STATUSES: Release['status'][] = [
  'proposed',
  'batched',
  'waiting_version',
  'merging',
  'tagging',
  'releasing',
  'notifying',
  'released',
  'failed',
];

/** /releases (every role): the workspace's releases, newest first, with CI state; open batched proposals under "proposed". */
export default function ReleasesPage() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const { workspaceId } = useCurrentWorkspace();
  const [status, setStatus] = useState('');
  const list = useKeysetQuery<Release>(releaseKeys.list(workspaceId, status), (cursor) =>
    data(
      api.GET('/v1/releases', {
        params: {
          query: {
            cursor,
            workspace_id: workspaceId ?? undefined,
            status: (status || undefined) as Release['status'] | undefined,
          },
        },
      }),
    ),
  );
  const columns: Column<Release>[] = [
    {
      header: t('proactive.releases.version'),
      cell: (r) => <Link to={`/releases/${r.id}`}>{r.version ?? r.tag ?? t('proactive.releases.noVersion')}</Link>,
    },
    {
      header: t('proactive.releases.status'),
      cell: (r) => (
        <span className={`badge pa-status pa-release-${r.status}`}>{t(`proactive.releases.statuses.${r.status}`)}</span>
      ),
    },
    {
      header: t('proactive.releases.ci'),
      cell: (r) => (r.ci_state ? t(`proactive.releases.ciStates.${r.ci_state}`) : '–'),
    },
    { header: t('proactive.releases.tickets'), cell: (r) => fmt.number(r.tickets.length) },
    { header: t('proactive.releases.kind'), cell: (r) => t(`proactive.releases.kinds.${r.kind}`) },
    { header: t('proactive.releases.when'), cell: (r) => fmt.dateTime(r.released_at ?? r.created_at) },
  ];
  return (
    <div className="stack">
      <h1>{t('proactive.releases.title')}</h1>
      <p className="muted">{t('proactive.releases.intro')}</p>
      <div className="row">
        <SelectField label={t('proactive.releases.status')} value={status} onChange={(e) => setStatus(e.target.value)}>
          <option value="">{t('proactive.releases.any')}</option>
          {RELEASE_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(`proactive.releases.statuses.${s}`)}
            </option>
          ))}
        </SelectField>
      </div>
      <KeysetTable
        caption={t('proactive.releases.title')}
        columns={columns}
        query={list}
        rowKey={(r) => r.id}
        emptyTitle={t('proactive.releases.none')}
        emptyBody={<p>{t('proactive.releases.noneBody')}</p>}
      />
    </div>
  );
}
