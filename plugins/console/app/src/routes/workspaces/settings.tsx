import { useMemo, useState } from 'react';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import { brandQuery } from '../../queries/brand';
import { authKeys } from '../../queries/session';
import { workspaceKeys, workspaceQuery } from '../../queries/workspaces';
import { Button, Dialog, ErrorAlert, ErrorState, Form, LoadingState, useFormat, useToast } from '../../ui';
import { FieldInput } from './field-input';
import {
  GROUPS,
  changes,
  initialValues,
  type FieldName,
  type FormValue,
  type Group,
  type Workspace,
  type WorkspacePatch,
} from './fields';
import './workspaces.css';

/** /workspaces/{id}: every setting of a workspace, one form per group; archive at the end. */
export default function WorkspaceSettings() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const fmt = useFormat();
  const query = useQuery(workspaceQuery(id));
  if (query.isPending) return <LoadingState />;
  if (query.isError) return <ErrorState error={query.error} retry={() => void query.refetch()} />;
  const ws = query.data;
  return (
    <div className="stack">
      <p>
        <Link to="/workspaces">{t('workspaces.back')}</Link>
      </p>
      <div className="spread">
        <h1>{t('workspaces.settingsTitle', { name: ws.name })}</h1>
        {ws.archived_at && <span className="badge">{t('workspaces.archived')}</span>}
      </div>
      {ws.archived_at && (
        <div className="alert alert-warning" role="note">
          {t('workspaces.archivedNote', { date: fmt.dateTime(ws.archived_at) })}
        </div>
      )}
      <nav aria-label={t('workspaces.groupsNav')} className="row ws-groups">
        {GROUPS.map((g) => (
          <a key={g.id} href={`#ws-${g.id}`}>
            {t(`workspaces.groups.${g.id}.title`)}
          </a>
        ))}
      </nav>
      {GROUPS.map((g) =>
        g.id === 'channels' ? (
          <Channels key={g.id} ws={ws} />
        ) : (
          <GroupForm key={`${g.id}-${JSON.stringify(initialValues(ws, g.fields))}`} ws={ws} group={g} />
        ),
      )}
      <Facts ws={ws} />
      {!ws.archived_at && <Archive ws={ws} />}
    </div>
  );
}

/** After a change: the page takes the answer; the list and the shell's switcher read theirs again. */
function useWorkspaceAnswer() {
  const client = useQueryClient();
  return (ws: Workspace) => {
    client.setQueryData(workspaceKeys.detail(ws.id), ws);
    void client.invalidateQueries({ queryKey: workspaceKeys.list() });
    void client.invalidateQueries({ queryKey: authKeys.me() });
  };
}

// The fields a forbidden execution combination names (details.combination of the 422).
const COMBINATION: Record<string, FieldName> = {
  mode: 'execution_mode',
  agent: 'agent_id',
  auth: 'auth_method',
  transport: 'runner_transport',
};

function GroupForm({ ws, group }: { ws: Workspace; group: Group }) {
  const { t } = useTranslation();
  const toast = useToast();
  const answer = useWorkspaceAnswer();
  const before = useMemo(() => initialValues(ws, group.fields), [ws, group.fields]);
  const [values, setValues] = useState(before);
  const brand = useQuery({ ...brandQuery(), enabled: group.id === 'general' });
  const save = useMutation({
    mutationFn: (body: WorkspacePatch) =>
      data(api.PATCH('/v1/workspaces/{id}', { params: { path: { id: ws.id } }, body })),
    onSuccess: (next) => {
      answer(next);
      toast.success(t('workspaces.saved', { group: t(`workspaces.groups.${group.id}.title`) }));
    },
  });
  const body = changes(group.fields, before, values);
  const dirty = Object.keys(body).length > 0;
  const submit = () => {
    if (dirty) save.mutate(body);
  };
  const forbidden = isApiError(save.error) && save.error.code === 'forbidden_combination' ? save.error.details : null;
  const forbiddenMessage = typeof forbidden?.message === 'string' ? forbidden.message : save.error?.message;
  const fieldMessage = (name: FieldName): string | undefined => {
    if (!isApiError(save.error)) return undefined;
    const own = save.error.fieldError(name);
    if (own) return own;
    const combo = forbidden?.combination as Record<string, unknown> | undefined;
    if (
      combo &&
      Object.entries(COMBINATION).some(
        ([k, f]) => f === name && combo[k] !== undefined && body[name as keyof WorkspacePatch] !== undefined,
      )
    ) {
      return forbiddenMessage;
    }
    return undefined;
  };
  const options =
    group.id === 'general' ? brand.data?.profiles.map((p) => ({ value: p.id, label: p.name })) : undefined;
  const headingId = `ws-${group.id}-title`;
  return (
    <section className="card stack" id={`ws-${group.id}`} aria-labelledby={headingId}>
      <div>
        <h2 id={headingId}>{t(`workspaces.groups.${group.id}.title`)}</h2>
        <p className="muted">{t(`workspaces.groups.${group.id}.intro`)}</p>
      </div>
      {forbidden ? (
        <div className="alert alert-error" role="alert">
          <strong>{forbiddenMessage}</strong>
          {typeof forbidden.suggestion === 'string' && <p>{forbidden.suggestion}</p>}
        </div>
      ) : (
        <ErrorAlert error={save.error} fields={group.fields.map((f) => f.name)} />
      )}
      <Form className="stack" onSubmit={submit}>
        <fieldset className="ws-fields" disabled={!!ws.archived_at}>
          <legend className="visually-hidden">{t(`workspaces.groups.${group.id}.title`)}</legend>
          {group.fields.map((f) => (
            <FieldInput
              key={f.name}
              spec={f}
              value={values[f.name]!}
              error={fieldMessage(f.name)}
              choices={f.name === 'brand_profile_id' ? options : undefined}
              onChange={(v: FormValue) => setValues((all) => ({ ...all, [f.name]: v }))}
            />
          ))}
        </fieldset>
        {!ws.archived_at && (
          <div className="row">
            <Button type="submit" variant="primary" pending={save.isPending} disabled={!dirty}>
              {t('workspaces.saveGroup', { group: t(`workspaces.groups.${group.id}.title`) })}
            </Button>
            {dirty && (
              <Button
                onClick={() => {
                  setValues(before);
                  save.reset();
                }}
              >
                {t('workspaces.undo')}
              </Button>
            )}
          </div>
        )}
      </Form>
    </section>
  );
}

/** The workspace's channels as the workspace carries them: the mailbox and the widget's key. */
function Channels({ ws }: { ws: Workspace }) {
  const { t } = useTranslation();
  return (
    <section className="card stack" id="ws-channels" aria-labelledby="ws-channels-title">
      <div>
        <h2 id="ws-channels-title">{t('workspaces.groups.channels.title')}</h2>
        <p className="muted">{t('workspaces.groups.channels.intro')}</p>
      </div>
      <dl className="ws-facts">
        <dt>{t('workspaces.facts.inbound_address')}</dt>
        <dd>{ws.inbound_address ? <code>{ws.inbound_address}</code> : t('workspaces.none')}</dd>
        <dt>{t('workspaces.facts.widget_key')}</dt>
        <dd>{ws.widget.public_key ? <code>{ws.widget.public_key}</code> : t('workspaces.none')}</dd>
        <dt>{t('workspaces.facts.allowed_origins')}</dt>
        <dd>{ws.widget.allowed_origins.length ? ws.widget.allowed_origins.join(', ') : t('workspaces.none')}</dd>
      </dl>
    </section>
  );
}

/** What the workspace is but settings do not change (billing, the plan, identifiers). */
function Facts({ ws }: { ws: Workspace }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const yes = (b: boolean) => (b ? t('workspaces.yes') : t('workspaces.no'));
  return (
    <section className="card stack" aria-labelledby="ws-facts-title">
      <h2 id="ws-facts-title">{t('workspaces.facts.title')}</h2>
      <dl className="ws-facts">
        <dt>{t('workspaces.facts.slug')}</dt>
        <dd>
          <code>{ws.slug}</code>
        </dd>
        <dt>{t('workspaces.facts.id')}</dt>
        <dd>
          <code>{ws.id}</code>
        </dd>
        <dt>{t('workspaces.facts.available_fix_credits')}</dt>
        <dd>{fmt.number(ws.available_fix_credits)}</dd>
        <dt>{t('workspaces.facts.managed_addon')}</dt>
        <dd>{yes(ws.managed_addon)}</dd>
        <dt>{t('workspaces.facts.collect_via_connect')}</dt>
        <dd>{yes(ws.collect_via_connect)}</dd>
        <dt>{t('workspaces.facts.resale_price')}</dt>
        <dd>{ws.resale_price === null ? t('workspaces.none') : fmt.number(ws.resale_price)}</dd>
        <dt>{t('workspaces.facts.created_at')}</dt>
        <dd>{fmt.dateTime(ws.created_at)}</dd>
        <dt>{t('workspaces.facts.updated_at')}</dt>
        <dd>{fmt.dateTime(ws.updated_at)}</dd>
      </dl>
    </section>
  );
}

function Archive({ ws }: { ws: Workspace }) {
  const { t } = useTranslation();
  const toast = useToast();
  const answer = useWorkspaceAnswer();
  const [open, setOpen] = useState(false);
  const archive = useMutation({
    mutationFn: () => data(api.POST('/v1/workspaces/{id}/archive', { params: { path: { id: ws.id } } })),
    onSuccess: (next) => {
      setOpen(false);
      answer(next);
      toast.success(t('workspaces.archiveDone', { name: next.name }));
    },
  });
  return (
    <section className="card stack" aria-labelledby="ws-archive-title">
      <h2 id="ws-archive-title">{t('workspaces.archive.title')}</h2>
      <p>{t('workspaces.archive.intro')}</p>
      <div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          {t('workspaces.archive.button')}
        </Button>
      </div>
      <Dialog
        open={open}
        title={t('workspaces.archive.confirmTitle', { name: ws.name })}
        onClose={() => {
          setOpen(false);
          archive.reset();
        }}
      >
        <div className="stack">
          <p>{t('workspaces.archive.confirmBody')}</p>
          <ErrorAlert error={archive.error} />
          <div className="row">
            <Button variant="danger" pending={archive.isPending} onClick={() => archive.mutate()}>
              {t('workspaces.archive.confirm')}
            </Button>
            <Button onClick={() => setOpen(false)} autoFocus>
              {t('common.cancel')}
            </Button>
          </div>
        </div>
      </Dialog>
    </section>
  );
}
