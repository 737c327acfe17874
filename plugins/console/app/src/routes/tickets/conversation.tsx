import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { useTicketChange, type Ticket } from '../../queries/tickets';
import { ErrorAlert, Form, FormActions, TextArea, fieldError, useFormat, useToast } from '../../ui';
import { Card, Prose } from './card';
import type { TicketPermissions } from './permissions';

type Message = Schema<'Message'>;
type WidgetContext = NonNullable<Message['widget_context']>;

/** The conversation, oldest first: the customer's messages, the replies sent, the team's notes. */
export function Conversation({ ticket, can }: { ticket: Ticket; can: TicketPermissions }) {
  const { t } = useTranslation();
  return (
    <Card title={t('ticket.conversation.title')}>
      <ol className="messages">
        {ticket.messages.map((m) => (
          <MessageItem key={m.id} message={m} />
        ))}
      </ol>
      {can.work && <NoteForm ticketId={ticket.id} />}
    </Card>
  );
}

function MessageItem({ message: m }: { message: Message }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const kind = m.is_internal_note ? 'note' : m.direction;
  return (
    <li className={`message message-${kind}`}>
      <div className="spread">
        <strong>
          {t(`ticket.conversation.kinds.${kind}`)}
          {m.from ? ` · ${m.from}` : ''}
        </strong>
        <span className="muted">
          <time dateTime={m.created_at}>{fmt.dateTime(m.created_at)}</time>
          {m.delivery_status && ` · ${t(`ticket.conversation.delivery.${m.delivery_status}`)}`}
        </span>
      </div>
      <Prose text={m.body_text ?? ''} />
      {m.attachments.length > 0 && (
        <ul className="attachments" aria-label={t('ticket.conversation.attachments')}>
          {m.attachments.map((a) => (
            <li key={a.id}>
              <a href={a.url} target="_blank" rel="noreferrer">
                {a.filename}
              </a>{' '}
              <span className="muted">
                {a.content_type} · {fmt.number(a.size / 1024, { maximumFractionDigits: 1 })} KB
              </span>
            </li>
          ))}
        </ul>
      )}
      {m.widget_context && <WidgetContextView context={m.widget_context} />}
    </li>
  );
}

/** What the widget captured with the report: page, browser, console and network. */
function WidgetContextView({ context: c }: { context: WidgetContext }) {
  const { t } = useTranslation();
  return (
    <details className="widget-context">
      <summary>{t('ticket.conversation.context', { console: c.console.length, network: c.network.length })}</summary>
      <dl className="facts">
        {c.url && (
          <>
            <dt>{t('ticket.conversation.page')}</dt>
            <dd>
              <code>{c.url}</code>
            </dd>
          </>
        )}
        {c.release && (
          <>
            <dt>{t('ticket.conversation.release')}</dt>
            <dd>
              <code>{c.release}</code>
            </dd>
          </>
        )}
        {c.browser && (
          <>
            <dt>{t('ticket.conversation.browser')}</dt>
            <dd>
              {[c.browser.name, c.browser.version, c.browser.os].filter(Boolean).join(' · ') || c.browser.user_agent}
            </dd>
          </>
        )}
        {c.screenshot_url && (
          <>
            <dt>{t('ticket.conversation.screenshot')}</dt>
            <dd>
              <a href={c.screenshot_url} target="_blank" rel="noreferrer">
                {t('ticket.conversation.openScreenshot')}
              </a>
            </dd>
          </>
        )}
      </dl>
      {c.console.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">{t('ticket.conversation.console')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ticket.conversation.level')}</th>
                <th scope="col">{t('ticket.conversation.message')}</th>
              </tr>
            </thead>
            <tbody>
              {c.console.map((e, i) => (
                <tr key={i}>
                  <td>{e.level}</td>
                  <td>
                    <code className="wrap">{e.message}</code>
                    {e.stack && <pre className="stack-trace">{e.stack}</pre>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {c.network.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">{t('ticket.conversation.network')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('ticket.conversation.request')}</th>
                <th scope="col">{t('ticket.conversation.status')}</th>
                <th scope="col">{t('ticket.conversation.duration')}</th>
              </tr>
            </thead>
            <tbody>
              {c.network.map((n, i) => (
                <tr key={i}>
                  <td>
                    <code className="wrap">
                      {n.method} {n.url}
                    </code>
                    {n.error && <div className="error">{n.error}</div>}
                  </td>
                  <td>{n.status}</td>
                  <td>{Math.round(n.duration_ms)} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </details>
  );
}

function NoteForm({ ticketId }: { ticketId: string }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [body, setBody] = useState('');
  const add = useTicketChange(ticketId, (body_md: string) =>
    data(api.POST('/v1/tickets/{id}/notes', { params: { path: { id: ticketId } }, body: { body_md } })),
  );
  const submit = () => {
    add.mutate(body, {
      onSuccess: () => {
        setBody('');
        toast.success(t('ticket.conversation.noteAdded'));
      },
    });
  };
  return (
    <Form className="stack" onSubmit={submit}>
      <ErrorAlert error={add.error} fields={['body_md']} />
      <TextArea
        label={t('ticket.conversation.note')}
        hint={t('ticket.conversation.noteHint')}
        value={body}
        onChange={(e) => setBody(e.target.value)}
        error={fieldError(add.error, 'body_md')}
      />
      <FormActions
        submit={t('ticket.conversation.addNote')}
        variant="secondary"
        pending={add.isPending}
        disabled={!body.trim()}
      />
    </Form>
  );
}
