import { useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { ticketKeys, type Ticket } from '../../queries/tickets';
import { ConfirmAction, useToast } from '../../ui';
import { Card } from './card';

/**
 * A privacy request about one conversation: the ticket goes with its messages, files, subscribers,
 * jobs and status page (DELETE /v1/privacy/tickets/{id}; owners and admins; audited). Irreversible,
 * so the dialog says what goes before anything does.
 */
export function DeleteTicket({ ticket }: { ticket: Ticket }) {
  const { t } = useTranslation();
  const toast = useToast();
  const navigate = useNavigate();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/privacy/tickets/{id}', { params: { path: { id: ticket.id } } })),
    onSuccess: () => {
      client.removeQueries({ queryKey: ticketKeys.detail(ticket.id) });
      void client.invalidateQueries({ queryKey: ticketKeys.lists() });
      toast.success(t('ticket.delete.done', { subject: ticket.subject || t('inbox.noSubject') }));
      void navigate('/tickets');
    },
  });
  return (
    <Card title={t('ticket.delete.title')}>
      <p className="muted">{t('ticket.delete.intro')}</p>
      <div>
        <ConfirmAction
          label={t('ticket.delete.action')}
          title={t('ticket.delete.confirmTitle')}
          confirm={t('ticket.delete.confirm')}
          danger
          action={remove}
        >
          <p>{t('ticket.delete.confirmBody', { subject: ticket.subject || t('inbox.noSubject') })}</p>
        </ConfirmAction>
      </div>
    </Card>
  );
}
