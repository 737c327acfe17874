import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { ticketAtWork, ticketQuery, type Ticket } from '../../queries/tickets';
import { useMe } from '../../queries/session';
import { ErrorState, LoadingState, Spinner, useFormat } from '../../ui';
import { AuditTrail } from './audit';
import { DeleteTicket } from './delete';
import { Conversation } from './conversation';
import { Diagnosis } from './diagnosis';
import { Drafts } from './drafts';
import { Fixes } from './fixes';
import { Jobs } from './jobs';
import { ticketPermissions, type TicketPermissions } from './permissions';
import { ReleaseProgress } from './release';
import { CustomerCard, StatusLinkCard, TeamActions } from './side';
import { SlaBadge } from './sla-badge';
import './tickets.css';

/** /tickets/:id: the ticket page. It polls while the service works on the ticket (a job, a release). */
export default function TicketPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const me = useMe();
  const ticket = useQuery(ticketQuery(id));
  if (ticket.isPending) return <LoadingState />;
  if (ticket.isError) {
    return (
      <div className="stack">
        <p>
          <Link to="/tickets">{t('ticket.back')}</Link>
        </p>
        <ErrorState error={ticket.error} retry={() => void ticket.refetch()} />
      </div>
    );
  }
  const can = ticketPermissions(me.data);
  return <Page ticket={ticket.data} can={can} refreshing={ticket.isFetching} />;
}

function Page({ ticket, can, refreshing }: { ticket: Ticket; can: TicketPermissions; refreshing: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const live = ticketAtWork(ticket);
  return (
    <div className="stack ticket-page">
      <p>
        <Link to="/tickets">{t('ticket.back')}</Link>
      </p>
      <header className="stack ticket-header">
        <h1>{ticket.subject || t('inbox.noSubject')}</h1>
        <div className="row">
          <span className={`badge state-${ticket.state}`}>{t(`tickets.states.${ticket.state}`)}</span>
          <span className="badge">{t(`inbox.categories.${ticket.category}`)}</span>
          <span className={`priority priority-${ticket.priority}`}>{t(`tickets.priorities.${ticket.priority}`)}</span>
          {ticket.needs_team_action && <span className="badge badge-attention">{t('inbox.needsTeam')}</span>}
          {ticket.state !== 'closed' && ticket.state !== 'customer_notified' && <SlaBadge due={ticket.sla_due_at} />}
          <span className="muted">
            {t('ticket.meta', {
              workspace: ticket.workspace_name,
              origin: t(`inbox.origins.${ticket.origin}`),
              when: fmt.dateTime(ticket.created_at),
            })}
          </span>
        </div>
        {live && (
          <div className="live" role="status">
            {refreshing ? <Spinner decorative /> : <span className="live-dot" aria-hidden="true" />}
            <span>{t('ticket.live')}</span>
          </div>
        )}
      </header>
      <div className="ticket-grid">
        <div className="stack ticket-main">
          <Conversation ticket={ticket} can={can} />
          <Diagnosis ticket={ticket} />
          <Drafts ticket={ticket} can={can} />
          <Fixes ticket={ticket} can={can} />
          <ReleaseProgress ticket={ticket} can={can} />
          <Jobs ticket={ticket} />
          <AuditTrail ticket={ticket} />
        </div>
        <aside className="stack ticket-side" aria-label={t('ticket.side')}>
          <CustomerCard ticket={ticket} can={can} />
          {can.work && <TeamActions ticket={ticket} />}
          <StatusLinkCard ticket={ticket} can={can} />
          {can.erase && <DeleteTicket ticket={ticket} />}
        </aside>
      </div>
    </div>
  );
}
