import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api, data } from '../../api/client';
import { useTicketAction, useTicketChange, type Draft, type Ticket } from '../../queries/tickets';
import {
  Button,
  Dialog,
  ErrorAlert,
  Form,
  FormActions,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { Card, Prose } from './card';
import { OlderItems } from './older';
import type { TicketPermissions } from './permissions';

/** Drafts to the customer: the open ones to edit, send or discard; the others as history. */
export function Drafts({ ticket, can }: { ticket: Ticket; can: TicketPermissions }) {
  const { t } = useTranslation();
  const open = ticket.drafts.items.filter((d) => d.status === 'draft');
  const past = ticket.drafts.items.filter((d) => d.status !== 'draft');
  const closed = ticket.state === 'closed';
  if (!can.work && ticket.drafts.total === 0) return null;
  return (
    <Card title={t('ticket.drafts.title')}>
      {open.length === 0 && <p className="muted">{t('ticket.drafts.none')}</p>}
      {open.map((d) =>
        can.work ? (
          <DraftEditor key={`${d.id}-${d.updated_at}`} ticket={ticket} draft={d} />
        ) : (
          <PastDraft key={d.id} draft={d} />
        ),
      )}
      {can.work && open.length === 0 && !closed && <NewDraft ticketId={ticket.id} />}
      {past.length > 0 && (
        <details>
          <summary>{t('ticket.drafts.history', { count: past.length })}</summary>
          <ul className="plain stack">
            {past.map((d) => (
              <li key={d.id}>
                <PastDraft draft={d} />
              </li>
            ))}
          </ul>
        </details>
      )}
      <OlderItems ticket={ticket} list="drafts" render={(d) => <PastDraft draft={d} />} />
    </Card>
  );
}

const EDITABLE_KINDS = ['reply', 'needs_info'] as const;
type EditableKind = (typeof EDITABLE_KINDS)[number];
const isEditableKind = (k: string): k is EditableKind => (EDITABLE_KINDS as readonly string[]).includes(k);

const DRAFT_LANGUAGES = ['en', 'it'] as const;
type DraftLanguage = (typeof DRAFT_LANGUAGES)[number];
const isDraftLanguage = (l: string): l is DraftLanguage => (DRAFT_LANGUAGES as readonly string[]).includes(l);

function DraftEditor({ ticket, draft }: { ticket: Ticket; draft: Draft }) {
  const { t } = useTranslation();
  const toast = useToast();
  const [body, setBody] = useState(draft.body_md);
  const [summary, setSummary] = useState(draft.public_summary ?? '');
  const [kind, setKind] = useState(draft.kind);
  const [language, setLanguage] = useState(draft.language);
  const [discarding, setDiscarding] = useState(false);
  const path = { id: ticket.id, draftId: draft.id };
  const changed =
    body !== draft.body_md ||
    summary !== (draft.public_summary ?? '') ||
    kind !== draft.kind ||
    language !== draft.language;
  const languageChange = isDraftLanguage(language) && language !== draft.language ? { language } : {};
  const save = useTicketChange(ticket.id, () =>
    data(
      api.PATCH('/v1/tickets/{id}/drafts/{draftId}', {
        params: { path },
        body: {
          body_md: body,
          public_summary: summary || null,
          ...(isEditableKind(kind) && kind !== draft.kind ? { kind } : {}),
          ...languageChange,
        },
      }),
    ),
  );
  // Send takes body and summary with the click; a changed language is saved first, so the email goes out in it.
  const send = useTicketAction(ticket.id, async () => {
    if ('language' in languageChange)
      await data(api.PATCH('/v1/tickets/{id}/drafts/{draftId}', { params: { path }, body: languageChange }));
    return data(
      api.POST('/v1/tickets/{id}/drafts/{draftId}/send', {
        params: { path },
        body: { body_md: body, public_summary: summary || null },
      }),
    );
  });
  const error = save.error ?? send.error;
  const submit = () => {
    save.mutate(undefined, { onSuccess: () => toast.success(t('ticket.drafts.saved')) });
  };
  return (
    <Form className="stack draft" onSubmit={submit} aria-label={t(`ticket.drafts.kinds.${draft.kind}`)}>
      <div className="row">
        <span className="badge">{t(`ticket.drafts.kinds.${draft.kind}`)}</span>
        <span className="muted">
          {t('ticket.drafts.language', {
            language: t(`common.locales.${draft.language}`, { defaultValue: draft.language }),
          })}
        </span>
        {!draft.diagnosis_id && <span className="muted">{t('ticket.drafts.byTeam')}</span>}
      </div>
      <ErrorAlert error={error} fields={['body_md', 'public_summary', 'kind', 'language']} />
      {isEditableKind(draft.kind) && (
        <SelectField
          label={t('ticket.drafts.kind')}
          value={kind}
          onChange={(e) => setKind(e.target.value as Draft['kind'])}
        >
          {EDITABLE_KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`ticket.drafts.kinds.${k}`)}
            </option>
          ))}
        </SelectField>
      )}
      <SelectField
        label={t('ticket.drafts.languageLabel')}
        hint={t('ticket.drafts.languageHint')}
        value={language}
        onChange={(e) => setLanguage(e.target.value)}
        error={fieldError(error, 'language')}
      >
        {DRAFT_LANGUAGES.map((l) => (
          <option key={l} value={l}>
            {t(`common.locales.${l}`)}
          </option>
        ))}
      </SelectField>
      <TextArea
        label={t('ticket.drafts.body')}
        value={body}
        onChange={(e) => setBody(e.target.value)}
        rows={8}
        error={fieldError(error, 'body_md')}
      />
      <TextField
        label={t('ticket.drafts.publicSummary')}
        hint={t('ticket.drafts.publicSummaryHint')}
        value={summary}
        onChange={(e) => setSummary(e.target.value)}
        error={fieldError(error, 'public_summary')}
      />
      <div className="row">
        <Button
          variant="primary"
          pending={send.isPending}
          disabled={save.isPending || !body.trim()}
          onClick={() => send.mutate(undefined, { onSuccess: () => toast.success(t('ticket.drafts.sent')) })}
        >
          {t('ticket.drafts.send')}
        </Button>
        <Button type="submit" pending={save.isPending} disabled={!changed || send.isPending}>
          {t('ticket.drafts.save')}
        </Button>
        <Button variant="danger" onClick={() => setDiscarding(true)} disabled={send.isPending}>
          {t('ticket.drafts.discard')}
        </Button>
      </div>
      <DiscardDialog open={discarding} onClose={() => setDiscarding(false)} ticketId={ticket.id} draftId={draft.id} />
    </Form>
  );
}

function DiscardDialog({
  open,
  onClose,
  ticketId,
  draftId,
}: {
  open: boolean;
  onClose: () => void;
  ticketId: string;
  draftId: string;
}) {
  const { t } = useTranslation();
  const [reason, setReason] = useState('');
  const discard = useTicketAction(ticketId, () =>
    data(
      api.POST('/v1/tickets/{id}/drafts/{draftId}/discard', {
        params: { path: { id: ticketId, draftId } },
        body: { reason: reason || null },
      }),
    ),
  );
  return (
    <Dialog open={open} title={t('ticket.drafts.discardTitle')} onClose={onClose}>
      <div className="stack">
        <ErrorAlert error={discard.error} fields={['reason']} />
        <TextField
          label={t('ticket.drafts.discardReason')}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          autoFocus
        />
        <div className="row">
          <Button
            variant="danger"
            pending={discard.isPending}
            onClick={() => discard.mutate(undefined, { onSuccess: onClose })}
          >
            {t('ticket.drafts.discardConfirm')}
          </Button>
          <Button onClick={onClose}>{t('common.cancel')}</Button>
        </div>
      </div>
    </Dialog>
  );
}

function NewDraft({ ticketId }: { ticketId: string }) {
  const { t } = useTranslation();
  const [body, setBody] = useState('');
  const [kind, setKind] = useState<EditableKind>('reply');
  const create = useTicketChange(ticketId, () =>
    data(api.POST('/v1/tickets/{id}/drafts', { params: { path: { id: ticketId } }, body: { kind, body_md: body } })),
  );
  const submit = () => {
    create.mutate(undefined, { onSuccess: () => setBody('') });
  };
  return (
    <Form className="stack" onSubmit={submit}>
      <ErrorAlert error={create.error} fields={['body_md', 'kind']} />
      <SelectField
        label={t('ticket.drafts.kind')}
        value={kind}
        onChange={(e) => setKind(e.target.value as EditableKind)}
      >
        {EDITABLE_KINDS.map((k) => (
          <option key={k} value={k}>
            {t(`ticket.drafts.kinds.${k}`)}
          </option>
        ))}
      </SelectField>
      <TextArea
        label={t('ticket.drafts.write')}
        value={body}
        onChange={(e) => setBody(e.target.value)}
        error={fieldError(create.error, 'body_md')}
      />
      <FormActions
        submit={t('ticket.drafts.create')}
        variant="secondary"
        pending={create.isPending}
        disabled={!body.trim()}
      />
    </Form>
  );
}

function PastDraft({ draft: d }: { draft: Draft }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const when = d.sent_at ?? d.discarded_at ?? d.updated_at;
  return (
    <div className="stack past-draft">
      <div className="row">
        <span className="badge">{t(`ticket.drafts.kinds.${d.kind}`)}</span>
        <span className="badge">{t(`ticket.drafts.statuses.${d.status}`)}</span>
        <time className="muted" dateTime={when}>
          {fmt.dateTime(when)}
        </time>
      </div>
      <Prose text={d.body_md} />
      {d.discard_reason && <p className="muted">{t('ticket.drafts.discardedBecause', { reason: d.discard_reason })}</p>}
    </div>
  );
}
