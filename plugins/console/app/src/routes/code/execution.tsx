import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { codeKeys, executionQuery, type ExecutionSettings } from '../../queries/code';
import {
  Button,
  CheckboxField,
  ConfirmDialog,
  DataTable,
  Form,
  FormActions,
  QueryView,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
  type Column,
} from '../../ui';
import { AgentChoiceFields, ExecutionError, MODES, type Transport } from '../onboarding/execution-fields';

type Body = RequestBody<'/v1/onboarding/execution/{workspaceId}', 'put'>;
type Credential = ExecutionSettings['credentials'][number];

/** Where diagnoses and fixes run: the four choices, write-only credentials, and the files a runner needs (preview). */
export function Execution({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const settings = useQuery(executionQuery(workspaceId));
  return (
    <section className="card stack" aria-labelledby="code-execution">
      <h2 id="code-execution">{t('code.execution.title')}</h2>
      <p className="muted">{t('code.execution.intro')}</p>
      <QueryView query={settings}>
        {(s) => (
          <>
            <ExecutionForm key={formKey(s)} settings={s} />
            <Requirements settings={s} />
            <Credentials settings={s} />
            <Preview settings={s} />
          </>
        )}
      </QueryView>
    </section>
  );
}

/** The form starts again from the stored settings when they change (a save), not on every background read. */
const formKey = (s: ExecutionSettings) =>
  JSON.stringify([s.mode, s.agent, s.auth, s.transport, s.runs_on, s.cloud_auth, s.credentials.map((c) => c.id)]);

function ExecutionForm({ settings: s }: { settings: ExecutionSettings }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const storedTransport: Transport = s.transport ?? '';
  const [form, setForm] = useState({
    mode: s.mode,
    agent: s.agent,
    auth: s.auth ?? 'api-key',
    transport: storedTransport,
    runs_on: s.runs_on.join(', '),
    agent_key: '',
    login_file: '',
    cloud: '',
    credential_later: false,
  });
  const [cloudError, setCloudError] = useState<string | undefined>();
  const set = <K extends keyof typeof form>(k: K, v: (typeof form)[K]) => setForm((f) => ({ ...f, [k]: v }));
  const save = useMutation({
    mutationFn: (body: Body) =>
      data(
        api.PUT('/v1/onboarding/execution/{workspaceId}', { params: { path: { workspaceId: s.workspace_id } }, body }),
      ),
    onSuccess: (next) => {
      client.setQueryData(codeKeys.execution(s.workspace_id), next);
      void client.invalidateQueries({ queryKey: codeKeys.repositories(s.workspace_id) });
      toast.success(t('code.execution.saved'));
    },
  });
  const submit = () => {
    let cloud: Record<string, unknown> | undefined;
    if (form.cloud.trim()) {
      try {
        cloud = JSON.parse(form.cloud) as Record<string, unknown>;
      } catch {
        setCloudError(t('code.execution.cloudInvalid'));
        return;
      }
    }
    setCloudError(undefined);
    const runsOn = form.runs_on
      .split(',')
      .map((l) => l.trim())
      .filter(Boolean);
    // Secrets are write-only: a field left blank keeps the stored credential.
    save.mutate({
      mode: form.mode,
      agent: form.agent,
      auth: form.auth,
      transport: form.transport || null,
      runs_on: runsOn,
      credential_later: form.credential_later,
      ...(form.agent_key ? { agent_key: form.agent_key } : {}),
      ...(form.login_file.trim() ? { codex_auth_json: form.login_file } : {}),
      ...(cloud ? { cloud_auth: cloud } : {}),
    });
  };
  const cloudAuth = form.auth === 'cloud_a' || form.auth === 'cloud_b';
  return (
    <Form className="stack" onSubmit={submit} aria-label={t('code.execution.formLabel')}>
      <ExecutionError
        error={save.error}
        fields={['mode', 'agent', 'auth', 'transport', 'agent_key', 'codex_auth_json', 'cloud_auth', 'runs_on']}
      />
      <div className="ws-fields">
        <SelectField
          label={t('onboarding.agent.mode')}
          value={form.mode}
          onChange={(e) => set('mode', e.target.value as Body['mode'])}
          error={fieldError(save.error, 'mode')}
          hint={t(`onboarding.agent.modeHints.${form.mode}`)}
        >
          {MODES.map((m) => (
            <option key={m} value={m}>
              {s.allowed_modes.includes(m)
                ? t(`onboarding.agent.modes.${m}`)
                : t('code.execution.notInPlan', { mode: t(`onboarding.agent.modes.${m}`) })}
            </option>
          ))}
        </SelectField>
        <AgentChoiceFields value={form} onChange={(p) => setForm((f) => ({ ...f, ...p }))} error={save.error} />
        <TextField
          label={t('code.execution.runsOn')}
          value={form.runs_on}
          onChange={(e) => set('runs_on', e.target.value)}
          hint={t('code.execution.runsOnHint')}
          error={fieldError(save.error, 'runs_on')}
        />
        <TextField
          label={t('code.execution.key')}
          type="password"
          autoComplete="off"
          value={form.agent_key}
          onChange={(e) => set('agent_key', e.target.value)}
          hint={t('code.execution.keyHint')}
          error={fieldError(save.error, 'agent_key')}
        />
        {form.auth === 'account_login' && (
          <TextArea
            label={t('code.execution.loginFile')}
            value={form.login_file}
            onChange={(e) => set('login_file', e.target.value)}
            rows={4}
            hint={t('code.execution.loginFileHint')}
            error={fieldError(save.error, 'codex_auth_json')}
          />
        )}
        {cloudAuth && (
          <TextArea
            label={t('code.execution.cloud')}
            value={form.cloud}
            onChange={(e) => set('cloud', e.target.value)}
            rows={4}
            hint={
              Object.keys(s.cloud_auth).length
                ? t('code.execution.cloudKept', { shown: JSON.stringify(s.cloud_auth) })
                : t('code.execution.cloudHint')
            }
            error={cloudError ?? fieldError(save.error, 'cloud_auth')}
          />
        )}
      </div>
      <CheckboxField
        label={t('onboarding.agent.later')}
        checked={form.credential_later}
        onChange={(e) => set('credential_later', e.target.checked)}
      />
      <FormActions submit={t('code.execution.save')} pending={save.isPending} />
    </Form>
  );
}

function Requirements({ settings: s }: { settings: ExecutionSettings }) {
  const { t } = useTranslation();
  if (s.requirements.length === 0)
    return (
      <div className="alert alert-success" role="status">
        {t('code.execution.ready')}
      </div>
    );
  return (
    <div className="alert alert-warning" role="status">
      <strong>{t('code.execution.needs')}</strong>
      <ul>
        {s.requirements.map((r) => (
          <li key={r}>{t(`code.execution.requirements.${r}`, { defaultValue: r })}</li>
        ))}
      </ul>
    </div>
  );
}

/** Stored credentials: never shown, only their last four characters; one no workspace uses can be deleted. */
function Credentials({ settings: s }: { settings: ExecutionSettings }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [deleting, setDeleting] = useState<Credential | null>(null);
  const caption = t('code.execution.credentials');
  const columns: Column<Credential>[] = [
    { header: t('code.execution.kind'), cell: (c) => t(`code.execution.kinds.${c.kind}`, { defaultValue: c.kind }) },
    { header: t('code.execution.secret'), cell: (c) => <code>{t('tokens.endsWith', { last4: c.last4 })}</code> },
    { header: t('code.execution.created'), cell: (c) => fmt.dateTime(c.rotated_at ?? c.created_at) },
    {
      header: t('code.execution.inUse'),
      cell: (c) => (c.in_use ? t('code.execution.used') : t('code.execution.unused')),
    },
    {
      header: t('code.execution.actions'),
      hiddenHeader: true,
      cell: (c) =>
        !c.in_use && (
          <Button
            variant="danger"
            onClick={() => setDeleting(c)}
            aria-label={t('code.execution.deleteNamed', { last4: c.last4 })}
          >
            {t('code.execution.delete')}
          </Button>
        ),
    },
  ];
  return (
    <div className="stack">
      <h3>{caption}</h3>
      {s.credentials.length === 0 ? (
        <p className="muted">{t('code.execution.noCredentials')}</p>
      ) : (
        <DataTable caption={caption} columns={columns} rows={s.credentials} rowKey={(c) => c.id} />
      )}
      {deleting && (
        <DeleteCredential workspaceId={s.workspace_id} credential={deleting} onClose={() => setDeleting(null)} />
      )}
    </div>
  );
}

function DeleteCredential({
  workspaceId,
  credential,
  onClose,
}: {
  workspaceId: string;
  credential: Credential;
  onClose: () => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () =>
      data(
        api.DELETE('/v1/onboarding/execution/{workspaceId}/credentials/{credentialId}', {
          params: { path: { workspaceId, credentialId: credential.id } },
        }),
      ),
    onSuccess: (next) => {
      client.setQueryData(codeKeys.execution(workspaceId), next);
      onClose();
      toast.success(t('code.execution.deleted'));
    },
  });
  return (
    <ConfirmDialog
      title={t('code.execution.deleteTitle', { last4: credential.last4 })}
      confirm={t('code.execution.deleteConfirm')}
      danger
      pending={remove.isPending}
      error={remove.error}
      onConfirm={() => remove.mutate()}
      onClose={onClose}
    >
      <p>{t('code.execution.deleteBody')}</p>
    </ConfirmDialog>
  );
}

/** The files the runner needs in the repository, as the onboarding pull request writes them: read only. */
function Preview({ settings: s }: { settings: ExecutionSettings }) {
  const { t } = useTranslation();
  const p = s.preview;
  return (
    <div className="stack">
      <h3>{t('code.execution.preview')}</h3>
      {p.files.length === 0 ? (
        <p className="muted">{t('code.execution.noPreview')}</p>
      ) : (
        <>
          {p.missing_variables.length > 0 && (
            <div className="alert alert-warning" role="note">
              {t('code.execution.missingVariables', { names: p.missing_variables.join(', ') })}
            </div>
          )}
          {p.files.map((f) => (
            <figure key={f.path} className="stack code-figure">
              <figcaption>
                <code>{f.path}</code>
              </figcaption>
              <pre
                className="code-preview"
                role="region"
                tabIndex={0}
                aria-label={t('code.execution.fileLabel', { path: f.path })}
              >
                <code>{f.content}</code>
              </pre>
            </figure>
          ))}
        </>
      )}
    </div>
  );
}
