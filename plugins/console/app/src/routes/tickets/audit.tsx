import { useTranslation } from 'react-i18next';
import type { Ticket } from '../../queries/tickets';
import { useFormat } from '../../ui';
import { Card } from './card';

/** Who did what to the ticket and its drafts, fixes and releases, newest first (the newest 50). */
export function AuditTrail({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  if (!ticket.audit) return null;
  return (
    <Card title={t('ticket.audit.title')}>
      {ticket.audit.length === 0 ? (
        <p className="muted">{t('ticket.audit.none')}</p>
      ) : (
        <ol className="plain audit">
          {ticket.audit.map((a) => (
            <li key={a.id}>
              <time dateTime={a.created_at} className="muted">
                {fmt.dateTime(a.created_at)}
              </time>{' '}
              <code>{a.action}</code> <span>{a.actor.email ?? t(`ticket.audit.actors.${a.actor.type}`)}</span>
              {a.changes && Object.keys(a.changes).length > 0 && (
                <span className="muted"> · {Object.keys(a.changes).join(', ')}</span>
              )}
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}
