import { NavLink, Navigate, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMe } from '../../queries/session';
import { useCurrentWorkspace } from '../../queries/workspaces';
import { EmptyState } from '../../ui';
import { Connectors } from './connectors';
import { Patterns } from './patterns';
import { SourceMaps } from './sourcemaps';
import { Widget } from './widget';
import './proactive.css';

const TABS = ['connectors', 'sourcemaps', 'patterns', 'widget'] as const;
type Tab = (typeof TABS)[number];

/**
 * /proactive/{tab} (owners and admins): how errors reach the service and what it does with them, for the
 * workspace chosen in the top bar: connectors, source maps, patterns, the widget. Each tab is its own address.
 */
export default function ProactivePage() {
  const { t } = useTranslation();
  const { tab = 'connectors' } = useParams();
  const { workspaceId } = useCurrentWorkspace();
  const me = useMe();
  if (!TABS.includes(tab as Tab)) return <Navigate to="/proactive" replace />;
  const role = me.data?.user.role;
  const admin = role === 'owner' || role === 'admin';
  return (
    <div className="stack">
      <h1>{t('proactive.title')}</h1>
      <nav className="pa-tabs" aria-label={t('proactive.tabsLabel')}>
        {TABS.map((k) => (
          <NavLink key={k} to={k === 'connectors' ? '/proactive' : `/proactive/${k}`} end>
            {t(`proactive.tabs.${k}`)}
          </NavLink>
        ))}
      </nav>
      <h2>{t(`proactive.tabs.${tab}`)}</h2>
      {!workspaceId ? (
        <EmptyState title={t('proactive.noWorkspace')} />
      ) : (
        <>
          {tab === 'connectors' && <Connectors workspaceId={workspaceId} canChange={admin} />}
          {tab === 'sourcemaps' && <SourceMaps workspaceId={workspaceId} canChange={admin} />}
          {tab === 'patterns' && <Patterns workspaceId={workspaceId} canDelete={admin} />}
          {tab === 'widget' && <Widget workspaceId={workspaceId} />}
        </>
      )}
    </div>
  );
}
