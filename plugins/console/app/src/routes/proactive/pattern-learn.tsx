/** Learning a pattern from a resolved ticket, and trying the patterns on a ticket. */
import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { proactiveKeys } from '../../queries/proactive';
import {
  Button,
  CheckboxField,
  Form,
  FormActions,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { ActionError } from './parts';

/** A ticket's id, also from its pasted address (…/tickets/tkt_…). */
const ticketId = (s: string) =>
  s
    .trim()
    .replace(/[?#].*$/, '')
    .replace(/\/+$/, '')
    .split('/')
    .pop() ?? '';

export function Learn() {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [ticket, setTicket] = useState('');
  const [title, setTitle] = useState('');
  const [summary, setSummary] = useState('');
  const [shared, setShared] = useState(false);
  const create = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/patterns', {
          body: {
            ticket_id: ticketId(ticket),
            shared,
            ...(title.trim() ? { title: title.trim() } : {}),
            ...(summary.trim() ? { fix_summary: summary.trim() } : {}),
          },
        }),
      ),
    onSuccess: (p) => {
      toast.success(t('proactive.patterns.createdToast', { title: p.title }));
      setTicket('');
      setTitle('');
      setSummary('');
      void client.invalidateQueries({ queryKey: proactiveKeys.patternLists() });
    },
  });
  return (
    <Form className="card stack" onSubmit={() => create.mutate()} aria-labelledby="pa-learn">
      <h3 id="pa-learn">{t('proactive.patterns.learn')}</h3>
      <p className="muted">{t('proactive.patterns.learnIntro')}</p>
      <ActionError error={create.error} fields={['ticket_id', 'title', 'fix_summary']} />
      <div className="pa-fields">
        <TextField
          label={t('proactive.patterns.ticket')}
          hint={t('proactive.patterns.ticketHint')}
          value={ticket}
          onChange={(e) => setTicket(e.target.value)}
          error={fieldError(create.error, 'ticket_id')}
        />
        <TextField
          label={t('proactive.patterns.titleOptional')}
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          error={fieldError(create.error, 'title')}
        />
        <TextArea
          label={t('proactive.patterns.summaryOptional')}
          value={summary}
          onChange={(e) => setSummary(e.target.value)}
          error={fieldError(create.error, 'fix_summary')}
        />
      </div>
      <CheckboxField
        label={t('proactive.patterns.share')}
        hint={t('proactive.patterns.shareHint')}
        checked={shared}
        onChange={(e) => setShared(e.target.checked)}
      />
      <FormActions submit={t('proactive.patterns.learnSubmit')} pending={create.isPending} disabled={!ticket.trim()} />
    </Form>
  );
}

/** The match tester: a ticket's best patterns, with the score and why each matched. */
export function TryTicket({ onOpen }: { onOpen: (id: string) => void }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [ticket, setTicket] = useState('');
  const match = useMutation({
    mutationFn: () => data(api.POST('/v1/patterns/match', { body: { ticket_id: ticketId(ticket), limit: 5 } })),
  });
  return (
    <Form className="card stack" onSubmit={() => match.mutate()} aria-labelledby="pa-try">
      <h3 id="pa-try">{t('proactive.patterns.try')}</h3>
      <p className="muted">{t('proactive.patterns.tryIntro')}</p>
      <ActionError error={match.error} fields={['ticket_id']} />
      <div className="row pa-inline">
        <TextField
          label={t('proactive.patterns.ticketToTry')}
          value={ticket}
          onChange={(e) => setTicket(e.target.value)}
          error={fieldError(match.error, 'ticket_id')}
        />
        <Button type="submit" pending={match.isPending} disabled={!ticket.trim()}>
          {t('proactive.patterns.match')}
        </Button>
      </div>
      {match.data && !match.isPending && (
        <div role="status" className="stack">
          {match.data.items.length === 0 ? (
            <p>{t('proactive.patterns.noMatch')}</p>
          ) : (
            <ol className="stack">
              {match.data.items.map((m) => (
                <li key={m.pattern.id}>
                  <strong>{t('proactive.patterns.score', { score: fmt.number(m.score, { style: 'percent' }) })}</strong>{' '}
                  <Button variant="link" onClick={() => onOpen(m.pattern.id)}>
                    {m.pattern.title}
                  </Button>
                  <div className="muted">
                    {t('proactive.patterns.because', {
                      reasons: m.reasons.map((r) => t(`proactive.patterns.reasons.${r}`)).join(', '),
                    })}
                  </div>
                </li>
              ))}
            </ol>
          )}
          <p>
            <Link to={`/tickets/${match.data.ticket_id}`}>{t('proactive.patterns.openTicket')}</Link>
          </p>
        </div>
      )}
    </Form>
  );
}
