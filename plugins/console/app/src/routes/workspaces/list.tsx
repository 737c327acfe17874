import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { RequestBody, Schema } from '../../api/types';
import { authKeys } from '../../queries/session';
import { workspaceKeys } from '../../queries/workspaces';
import {
  CheckboxField,
  ErrorAlert,
  Form,
  FormActions,
  KeysetTable,
  LocaleOptions,
  SelectField,
  TextField,
  fieldError,
  useKeysetQuery,
  useToast,
  type Column,
} from '../../ui';
import './workspaces.css';

type Item = Schema<'WorkspaceListItem'>;
type Create = RequestBody<'/v1/workspaces', 'post'>;

/** /workspaces: the workspaces of the organization (archived ones on request) and a new one. */
export default function Workspaces() {
  const { t } = useTranslation();
  const [archived, setArchived] = useState(false);
  const query = useKeysetQuery<Item>([...workspaceKeys.list(), { archived }], (cursor) =>
    data(api.GET('/v1/workspaces', { params: { query: { cursor, include_archived: archived } } })),
  );
  const columns = useMemo<Column<Item>[]>(
    () => [
      { header: t('workspaces.columns.name'), cell: (w) => <Link to={`/workspaces/${w.id}`}>{w.name}</Link> },
      { header: t('workspaces.columns.client'), cell: (w) => w.client_name ?? '' },
      { header: t('workspaces.columns.slug'), cell: (w) => <code>{w.slug}</code> },
      { header: t('workspaces.columns.mode'), cell: (w) => t(`workspaces.options.execution_mode.${w.execution_mode}`) },
      { header: t('workspaces.columns.autonomy'), cell: (w) => t(`workspaces.options.autonomy.${w.autonomy}`) },
      {
        header: t('workspaces.columns.status'),
        cell: (w) =>
          w.archived_at ? <span className="badge">{t('workspaces.archived')}</span> : t('workspaces.active'),
      },
    ],
    [t],
  );
  return (
    <div className="stack">
      <h1>{t('workspaces.title')}</h1>
      <CreateWorkspace />
      <section className="stack" aria-labelledby="ws-list-title">
        <div className="spread">
          <h2 id="ws-list-title">{t('workspaces.listTitle')}</h2>
          <CheckboxField
            label={t('workspaces.showArchived')}
            checked={archived}
            onChange={(e) => setArchived(e.target.checked)}
          />
        </div>
        <KeysetTable
          caption={t('workspaces.listTitle')}
          columns={columns}
          query={query}
          rowKey={(w) => w.id}
          emptyTitle={t('workspaces.empty')}
        />
      </section>
    </div>
  );
}

function CreateWorkspace() {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [form, setForm] = useState({ name: '', slug: '', client_name: '', locale: 'en', execution_mode: 'managed' });
  const create = useMutation({
    mutationFn: (body: Create) => data(api.POST('/v1/workspaces', { body })),
    onSuccess: (ws) => {
      void client.invalidateQueries({ queryKey: workspaceKeys.list() });
      void client.invalidateQueries({ queryKey: authKeys.me() });
      client.setQueryData(workspaceKeys.detail(ws.id), ws);
      toast.success(t('workspaces.created', { name: ws.name }));
      void navigate(`/workspaces/${ws.id}`);
    },
  });
  const set = (k: keyof typeof form) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [k]: e.target.value }));
  const submit = () => {
    create.mutate({
      name: form.name.trim(),
      ...(form.slug.trim() ? { slug: form.slug.trim() } : {}),
      ...(form.client_name.trim() ? { client_name: form.client_name.trim() } : {}),
      locale: form.locale as Create['locale'],
      execution_mode: form.execution_mode as Create['execution_mode'],
    });
  };
  // 409 slug_taken names the slug: shown at its field.
  const slugTaken = isApiError(create.error) && create.error.code === 'slug_taken' ? create.error.message : undefined;
  return (
    <section className="card stack" aria-labelledby="ws-create-title">
      <h2 id="ws-create-title">{t('workspaces.create.title')}</h2>
      {!slugTaken && (
        <ErrorAlert error={create.error} fields={['name', 'slug', 'client_name', 'locale', 'execution_mode']} />
      )}
      <Form className="stack" onSubmit={submit}>
        <div className="ws-fields">
          <TextField
            label={t('workspaces.fields.name')}
            value={form.name}
            onChange={set('name')}
            error={fieldError(create.error, 'name')}
          />
          <TextField
            label={t('workspaces.create.slug')}
            hint={t('workspaces.create.slugHint')}
            value={form.slug}
            onChange={set('slug')}
            error={fieldError(create.error, 'slug') ?? slugTaken}
          />
          <TextField
            label={t('workspaces.fields.client_name')}
            hint={t('workspaces.hints.client_name')}
            value={form.client_name}
            onChange={set('client_name')}
            error={fieldError(create.error, 'client_name')}
          />
          <SelectField
            label={t('workspaces.fields.locale')}
            value={form.locale}
            onChange={set('locale')}
            error={fieldError(create.error, 'locale')}
          >
            <LocaleOptions />
          </SelectField>
          <SelectField
            label={t('workspaces.fields.execution_mode')}
            value={form.execution_mode}
            onChange={set('execution_mode')}
            error={fieldError(create.error, 'execution_mode')}
          >
            {(['managed', 'runner', 'mcp'] as const).map((m) => (
              <option key={m} value={m}>
                {t(`workspaces.options.execution_mode.${m}`)}
              </option>
            ))}
          </SelectField>
        </div>
        <FormActions submit={t('workspaces.create.submit')} pending={create.isPending} />
      </Form>
    </section>
  );
}
