import { useTranslation } from 'react-i18next';
import type { Schema } from '../../api/types';
import { useMe } from '../../queries/session';
import { Button, Dialog, useFormat } from '../../ui';
import './audit.css';

type Entry = Schema<'AuditEntry'>;

const json = (v: unknown) => (v === undefined ? '—' : JSON.stringify(v));

/** One entry in full: who, from where, what it touched, each changed field before and after (secrets read [redacted]). */
export function EntryDetails({ entry, onClose }: { entry: Entry; onClose: () => void }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const me = useMe().data!;
  const workspace = entry.workspace_id
    ? (me.workspaces.find((w) => w.id === entry.workspace_id)?.name ?? entry.workspace_id)
    : null;
  const changes = Object.entries(entry.changes ?? {});
  return (
    <Dialog open title={t('audit.detailsTitle', { action: entry.action })} onClose={onClose}>
      <div className="stack">
        <dl className="ws-facts">
          <dt>{t('audit.when')}</dt>
          <dd>{fmt.dateTime(entry.created_at)}</dd>
          <dt>{t('audit.action')}</dt>
          <dd>
            <code>{entry.action}</code>
          </dd>
          <dt>{t('audit.actor')}</dt>
          <dd>
            {t(`audit.actorTypes.${entry.actor.type}`)}
            {entry.actor.email && ` · ${entry.actor.email}`}
            {entry.actor.id && <div className="muted">{entry.actor.id}</div>}
          </dd>
          <dt>{t('audit.target')}</dt>
          <dd>{entry.target ? `${entry.target.type} · ${entry.target.id ?? '—'}` : '—'}</dd>
          <dt>{t('audit.workspace')}</dt>
          <dd>{workspace ?? '—'}</dd>
          <dt>{t('audit.ip')}</dt>
          <dd>{entry.ip ?? '—'}</dd>
          <dt>{t('audit.userAgent')}</dt>
          <dd>{entry.user_agent ?? '—'}</dd>
          <dt>{t('audit.requestId')}</dt>
          <dd>{entry.request_id ? <code>{entry.request_id}</code> : '—'}</dd>
        </dl>
        {changes.length > 0 && (
          <div className="table-wrap" role="region" aria-label={t('audit.changes')} tabIndex={0}>
            <table>
              <caption>{t('audit.changes')}</caption>
              <thead>
                <tr>
                  <th scope="col">{t('audit.field')}</th>
                  <th scope="col">{t('audit.before')}</th>
                  <th scope="col">{t('audit.after')}</th>
                </tr>
              </thead>
              <tbody>
                {changes.map(([field, c]) => (
                  <tr key={field}>
                    <th scope="row">
                      <code>{field}</code>
                    </th>
                    <td>
                      <code>{json(c.before)}</code>
                    </td>
                    <td>
                      <code>{json(c.after)}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {entry.metadata && Object.keys(entry.metadata).length > 0 && (
          <div className="stack">
            <h3>{t('audit.metadata')}</h3>
            <pre className="pre-block">{JSON.stringify(entry.metadata, null, 2)}</pre>
          </div>
        )}
        <div>
          <Button onClick={onClose} autoFocus>
            {t('audit.close')}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}
