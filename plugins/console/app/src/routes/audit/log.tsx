import { useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { auditKeys, type AuditFilters } from '../../queries/audit';
import { useMe } from '../../queries/session';
import {
  Button,
  ErrorAlert,
  KeysetTable,
  SelectField,
  TextField,
  useFormat,
  useKeysetQuery,
  type Column,
} from '../../ui';
import { EntryDetails } from './entry';
import '../workspaces/workspaces.css';

type Entry = Schema<'AuditEntry'>;
const EMPTY: Required<AuditFilters> = {
  actor: '',
  action: '',
  target_type: '',
  target_id: '',
  workspace_id: '',
  from: '',
  to: '',
};

/**
 * /audit (owners and admins): the organization's audit log, newest first, with the API's filters,
 * keyset pages, an entry's details and the matching entries as a file.
 */
export default function AuditLog() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [draft, setDraft] = useState(EMPTY);
  const [filters, setFilters] = useState<AuditFilters>({});
  const [open, setOpen] = useState<Entry | null>(null);
  const query = useKeysetQuery<Entry>(auditKeys.list(filters), (cursor) =>
    data(api.GET('/v1/audit', { params: { query: { ...filters, cursor } } })),
  );
  const columns = useMemo<Column<Entry>[]>(
    () => [
      { header: t('audit.when'), cell: (e) => fmt.dateTime(e.created_at) },
      { header: t('audit.action'), cell: (e) => <code>{e.action}</code> },
      {
        header: t('audit.actor'),
        cell: (e) => (
          <>
            {e.actor.email ?? e.actor.id ?? '—'}
            <div className="muted">{t(`audit.actorTypes.${e.actor.type}`)}</div>
          </>
        ),
      },
      {
        header: t('audit.target'),
        cell: (e) =>
          e.target ? (
            <>
              {e.target.type}
              <div className="muted">{e.target.id}</div>
            </>
          ) : (
            '—'
          ),
      },
      {
        header: t('audit.details'),
        hiddenHeader: true,
        cell: (e) => (
          <Button
            onClick={() => setOpen(e)}
            aria-label={t('audit.detailsOf', { action: e.action, when: fmt.dateTime(e.created_at) })}
          >
            {t('audit.details')}
          </Button>
        ),
      },
    ],
    [t, fmt],
  );
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(toQuery(draft));
  };
  return (
    <div className="stack">
      <div className="spread">
        <h1>{t('audit.title')}</h1>
        <Link className="btn" to="/audit/stream">
          {t('audit.stream.nav')}
        </Link>
      </div>
      <p className="muted">{t('audit.intro')}</p>
      <Filters
        draft={draft}
        onChange={setDraft}
        onSubmit={apply}
        onClear={() => {
          setDraft(EMPTY);
          setFilters({});
        }}
      />
      <section className="stack" aria-labelledby="audit-entries">
        <div className="spread">
          <h2 id="audit-entries">{t('audit.entries')}</h2>
          <Download filters={filters} />
        </div>
        <KeysetTable
          caption={t('audit.entries')}
          columns={columns}
          query={query}
          rowKey={(e) => e.id}
          emptyTitle={t('audit.empty')}
        />
      </section>
      {open && <EntryDetails entry={open} onClose={() => setOpen(null)} />}
    </div>
  );
}

/** The form's values as the API's query: a day chosen in the person's calendar; "until" includes its day (the API's `to` is exclusive). */
function toQuery(d: Required<AuditFilters>): AuditFilters {
  const q: AuditFilters = {};
  for (const k of ['actor', 'action', 'target_type', 'target_id', 'workspace_id'] as const)
    if (d[k].trim()) q[k] = d[k].trim();
  if (d.from) q.from = new Date(`${d.from}T00:00:00`).toISOString();
  if (d.to) {
    const end = new Date(`${d.to}T00:00:00`);
    end.setDate(end.getDate() + 1);
    q.to = end.toISOString();
  }
  return q;
}

function Filters({
  draft,
  onChange,
  onSubmit,
  onClear,
}: {
  draft: Required<AuditFilters>;
  onChange: (d: Required<AuditFilters>) => void;
  onSubmit: (e: FormEvent) => void;
  onClear: () => void;
}) {
  const { t } = useTranslation();
  const me = useMe().data!;
  const set = (k: keyof AuditFilters) => (e: { target: { value: string } }) =>
    onChange({ ...draft, [k]: e.target.value });
  return (
    <form className="card stack" onSubmit={onSubmit} aria-labelledby="audit-filters">
      <h2 id="audit-filters">{t('audit.filters.title')}</h2>
      <div className="ws-fields">
        <TextField
          label={t('audit.filters.actor')}
          hint={t('audit.filters.actorHint')}
          value={draft.actor}
          onChange={set('actor')}
        />
        <TextField
          label={t('audit.filters.action')}
          hint={t('audit.filters.actionHint')}
          value={draft.action}
          onChange={set('action')}
        />
        <TextField
          label={t('audit.filters.targetType')}
          hint={t('audit.filters.targetTypeHint')}
          value={draft.target_type}
          onChange={set('target_type')}
        />
        <TextField label={t('audit.filters.targetId')} value={draft.target_id} onChange={set('target_id')} />
        <SelectField label={t('audit.filters.workspace')} value={draft.workspace_id} onChange={set('workspace_id')}>
          <option value="">{t('audit.filters.anyWorkspace')}</option>
          {me.workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.name}
            </option>
          ))}
        </SelectField>
        <TextField label={t('audit.filters.from')} type="date" value={draft.from} onChange={set('from')} />
        <TextField
          label={t('audit.filters.to')}
          hint={t('audit.filters.toHint')}
          type="date"
          value={draft.to}
          onChange={set('to')}
        />
      </div>
      <div className="row">
        <Button type="submit" variant="primary">
          {t('audit.filters.apply')}
        </Button>
        <Button onClick={onClear}>{t('audit.filters.clear')}</Button>
      </div>
    </form>
  );
}

/** The entries the filters match, as a file (plans without audit_export: the API's 402, shown here). */
function Download({ filters }: { filters: AuditFilters }) {
  const { t } = useTranslation();
  const download = useMutation({
    mutationFn: async (format: 'csv' | 'jsonl') => {
      const blob = await data(
        api.GET('/v1/audit/export', { params: { query: { ...filters, format } }, parseAs: 'blob' }),
      );
      const url = URL.createObjectURL(blob);
      const a = document.createElement('a');
      a.href = url;
      a.download = `audit-log.${format}`;
      a.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    },
  });
  return (
    <div className="stack">
      <div className="row">
        <Button pending={download.isPending && download.variables === 'csv'} onClick={() => download.mutate('csv')}>
          {t('audit.export.csv')}
        </Button>
        <Button pending={download.isPending && download.variables === 'jsonl'} onClick={() => download.mutate('jsonl')}>
          {t('audit.export.jsonl')}
        </Button>
      </div>
      <ErrorAlert error={download.error} />
    </div>
  );
}
