import { useState } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { proactiveKeys, type Pattern } from '../../queries/proactive';
import {
  Button,
  CheckboxField,
  ConfirmAction,
  Dialog,
  Form,
  KeysetTable,
  QueryView,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import { ActionError } from './parts';
import { Learn, TryTicket } from './pattern-learn';

type Scope = 'all' | 'own' | 'shared';

/**
 * Patterns: what a resolved ticket taught (the problem's signature and the fix), shared anonymously between
 * organizations that opted in; new tickets are matched against them. "Try a ticket" shows the matches of any ticket.
 */
export function Patterns({ workspaceId, canDelete }: { workspaceId: string; canDelete: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [scope, setScope] = useState<Scope>('all');
  const [open, setOpen] = useState<string | null>(null);
  const list = useKeysetQuery<Pattern>(proactiveKeys.patterns(workspaceId, scope), (cursor) =>
    data(
      api.GET('/v1/patterns', {
        params: { query: { cursor, scope, workspace_id: scope === 'shared' ? undefined : workspaceId } },
      }),
    ),
  );
  const whose = (p: Pattern) =>
    p.owned
      ? p.shared
        ? t('proactive.patterns.ownShared')
        : t('proactive.patterns.ownPrivate')
      : t('proactive.patterns.others');
  const columns: Column<Pattern>[] = [
    {
      header: t('proactive.patterns.titleField'),
      cell: (p) => (
        <div className="pa-title">
          <Button variant="link" onClick={() => setOpen(p.id)}>
            {p.title}
          </Button>
          <span className="muted">{p.fix.summary}</span>
        </div>
      ),
    },
    {
      header: t('proactive.patterns.category'),
      cell: (p) => t(`proactive.categories.${p.category}`, { defaultValue: p.category }),
    },
    { header: t('proactive.patterns.whose'), cell: (p) => whose(p) },
    { header: t('proactive.patterns.created'), cell: (p) => fmt.date(p.created_at) },
  ];
  return (
    <div className="stack">
      <p className="muted">{t('proactive.patterns.intro')}</p>
      <Learn />
      <TryTicket onOpen={setOpen} />
      <h3>{t('proactive.patterns.list')}</h3>
      <div className="row">
        <SelectField
          label={t('proactive.patterns.scope')}
          value={scope}
          onChange={(e) => setScope(e.target.value as Scope)}
        >
          {(['all', 'own', 'shared'] as const).map((s) => (
            <option key={s} value={s}>
              {t(`proactive.patterns.scopes.${s}`)}
            </option>
          ))}
        </SelectField>
      </div>
      <KeysetTable
        caption={t('proactive.patterns.list')}
        columns={columns}
        query={list}
        rowKey={(p) => p.id}
        emptyTitle={t('proactive.patterns.none')}
      />
      {open && <PatternDialog id={open} canDelete={canDelete} onClose={() => setOpen(null)} />}
    </div>
  );
}

/** A pattern's problem and fix; its own organization edits it (title, fix, sharing, keywords) and owners and admins delete it. */
function PatternDialog({ id, canDelete, onClose }: { id: string; canDelete: boolean; onClose: () => void }) {
  const { t } = useTranslation();
  const p = useQuery({
    queryKey: [...proactiveKeys.patternLists(), 'detail', id],
    queryFn: () => data(api.GET('/v1/patterns/{id}', { params: { path: { id } } })),
  });
  return (
    <Dialog open title={p.data?.title ?? t('proactive.patterns.pattern')} onClose={onClose}>
      <QueryView query={p}>
        {(pattern) => <PatternBody pattern={pattern} canDelete={canDelete} onClose={onClose} />}
      </QueryView>
    </Dialog>
  );
}

function PatternBody({
  pattern: p,
  canDelete,
  onClose,
}: {
  pattern: Pattern;
  canDelete: boolean;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [title, setTitle] = useState(p.title);
  const [summary, setSummary] = useState(p.fix.summary);
  const [shared, setShared] = useState(p.shared);
  const [keywords, setKeywords] = useState(p.problem.keywords.join(', '));
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/v1/patterns/{id}', {
          params: { path: { id: p.id } },
          body: {
            title: title.trim(),
            fix_summary: summary,
            shared,
            keywords: keywords
              .split(',')
              .map((k) => k.trim())
              .filter(Boolean),
          },
        }),
      ),
    onSuccess: (next) => {
      toast.success(t('proactive.saved'));
      client.setQueryData([...proactiveKeys.patternLists(), 'detail', p.id], next);
      void client.invalidateQueries({ queryKey: proactiveKeys.patternLists() });
    },
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/patterns/{id}', { params: { path: { id: p.id } } })),
    onSuccess: () => {
      toast.success(t('proactive.patterns.deleted'));
      void client.invalidateQueries({ queryKey: proactiveKeys.patternLists() });
      onClose();
    },
  });
  return (
    <div className="stack">
      <dl className="pa-facts">
        {p.problem.error_type && (
          <>
            <dt>{t('proactive.group.type')}</dt>
            <dd>
              <code>{p.problem.error_type}</code>
            </dd>
          </>
        )}
        <dt>{t('proactive.group.message')}</dt>
        <dd>
          <code>{p.problem.normalized_message}</code>
        </dd>
        {p.problem.frames.length > 0 && (
          <>
            <dt>{t('proactive.group.frames')}</dt>
            <dd>{p.problem.frames.map((f) => `${f.function} (${f.file})`).join(' ← ')}</dd>
          </>
        )}
        <dt>{t('proactive.patterns.fix')}</dt>
        <dd>{p.fix.summary || '–'}</dd>
        {p.fix.files_changed != null && (
          <>
            <dt>{t('proactive.patterns.diff')}</dt>
            <dd>
              {t('proactive.patterns.diffValue', {
                files: p.fix.files_changed,
                add: p.fix.additions ?? 0,
                del: p.fix.deletions ?? 0,
              })}
            </dd>
          </>
        )}
        {p.source_ticket_id && (
          <>
            <dt>{t('proactive.patterns.ticket')}</dt>
            <dd>
              <Link to={`/tickets/${p.source_ticket_id}`}>{p.source_ticket_id}</Link>
            </dd>
          </>
        )}
      </dl>
      {p.owned ? (
        <Form className="stack" onSubmit={() => save.mutate()}>
          <ActionError error={save.error} fields={['title', 'fix_summary', 'keywords']} />
          <TextField
            label={t('proactive.patterns.titleField')}
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            error={fieldError(save.error, 'title')}
          />
          <TextArea
            label={t('proactive.patterns.fix')}
            value={summary}
            onChange={(e) => setSummary(e.target.value)}
            error={fieldError(save.error, 'fix_summary')}
          />
          <TextField
            label={t('proactive.patterns.keywords')}
            hint={t('proactive.patterns.keywordsHint')}
            value={keywords}
            onChange={(e) => setKeywords(e.target.value)}
          />
          <CheckboxField
            label={t('proactive.patterns.share')}
            hint={t('proactive.patterns.shareHint')}
            checked={shared}
            onChange={(e) => setShared(e.target.checked)}
          />
          <div className="row">
            <Button type="submit" variant="primary" pending={save.isPending}>
              {t('proactive.save')}
            </Button>
            {canDelete && (
              <ConfirmAction
                label={t('proactive.patterns.delete')}
                title={t('proactive.patterns.deleteTitle')}
                confirm={t('proactive.patterns.delete')}
                danger
                action={remove}
              >
                <p>{t('proactive.patterns.deleteBody')}</p>
              </ConfirmAction>
            )}
          </div>
        </Form>
      ) : (
        <p className="muted">{t('proactive.patterns.othersNote')}</p>
      )}
    </div>
  );
}
