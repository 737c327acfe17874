import { Fragment, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { connectorsQuery, proactiveKeys, type Connector } from '../../queries/proactive';
import {
  Button,
  ConfirmDialog,
  CopyValue,
  Dialog,
  ErrorState,
  LoadingState,
  SecretOnce,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { ActionError, copyTexts, settingsIssue } from './parts';

type Kind = Connector['kind'];
const KINDS: Kind[] = ['endpoint', 'error_tracker', 'metrics_platform', 'cloud_logs'];

/** The settings of each kind (docs/proactive.md): config fields, then write-only secrets. */
const FIELDS: Record<Kind, { config: string[]; secrets: string[] }> = {
  endpoint: { config: [], secrets: [] },
  error_tracker: { config: ['organization', 'project', 'base_url'], secrets: ['client_secret', 'auth_token'] },
  metrics_platform: { config: ['base_url', 'query'], secrets: ['api_key', 'application_key'] },
  cloud_logs: {
    config: ['region', 'role_arn', 'external_id', 'log_group_name', 'filter_pattern'],
    secrets: ['access_key_id', 'secret_access_key'],
  },
};

/** Connectors of the workspace: how errors reach the service (a push endpoint, a tracker, a logs platform, CloudWatch). */
export function Connectors({ workspaceId, canChange }: { workspaceId: string; canChange: boolean }) {
  const { t } = useTranslation();
  const list = useQuery(connectorsQuery(workspaceId));
  const [token, setToken] = useState<string | null>(null);
  return (
    <div className="stack">
      <p className="muted">{t('proactive.connectors.intro')}</p>
      {list.isPending ? (
        <LoadingState />
      ) : list.isError ? (
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      ) : list.data.items.length === 0 ? (
        <p>{t('proactive.connectors.none')}</p>
      ) : (
        list.data.items.map((c) => <ConnectorCard key={c.id} connector={c} canChange={canChange} onToken={setToken} />)
      )}
      {canChange && <CreateConnector workspaceId={workspaceId} onToken={setToken} />}
      {token && (
        <SecretOnce
          secret={token}
          onClose={() => setToken(null)}
          texts={{
            title: t('proactive.connectors.tokenTitle'),
            label: t('proactive.connectors.token'),
            warning: t('proactive.connectors.tokenWarning'),
            copy: t('proactive.copy'),
            copied: t('proactive.copied'),
            failed: t('proactive.copyFailed'),
            done: t('proactive.done'),
          }}
        />
      )}
    </div>
  );
}

function ConnectorCard({
  connector: c,
  canChange,
  onToken,
}: {
  connector: Connector;
  canChange: boolean;
  onToken: (token: string) => void;
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const [asking, setAsking] = useState<'rotate' | 'delete' | 'edit' | null>(null);
  const put = (next: Connector) =>
    client.setQueryData(
      proactiveKeys.connectors(c.workspace_id),
      (old: { items: Connector[] } | undefined) =>
        old && { items: old.items.map((x) => (x.id === next.id ? next : x)) },
    );
  const path = { params: { path: { id: c.id } } };
  const test = useMutation({
    mutationFn: () => data(api.POST('/v1/connectors/{id}/test', path)),
    onSuccess: (r) => {
      if (r.connector) put(r.connector);
    },
  });
  const pause = useMutation({
    mutationFn: () =>
      c.status === 'paused'
        ? data(api.POST('/v1/connectors/{id}/resume', path))
        : data(api.POST('/v1/connectors/{id}/pause', path)),
    onSuccess: (next) => {
      put(next);
      toast.success(next.status === 'paused' ? t('proactive.connectors.paused') : t('proactive.connectors.resumed'));
    },
  });
  const rotate = useMutation({
    mutationFn: () => data(api.POST('/v1/connectors/{id}/rotate-token', path)),
    onSuccess: (r) => {
      setAsking(null);
      if (r.connector) put(r.connector);
      if (r.token) onToken(r.token);
    },
  });
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/connectors/{id}', path)),
    onSuccess: () => {
      setAsking(null);
      toast.success(t('proactive.connectors.deleted'));
      void client.invalidateQueries({ queryKey: proactiveKeys.connectors(c.workspace_id) });
    },
  });
  const headingId = `pa-connector-${c.id}`;
  const r = test.data;
  return (
    <section className="card stack" aria-labelledby={headingId}>
      <div className="spread">
        <h3 id={headingId}>
          {c.name} <span className="muted">· {t(`proactive.kinds.${c.kind}`)}</span>
        </h3>
        <span className={`badge pa-status pa-connector-${c.status}`}>
          {t(`proactive.connectors.statuses.${c.status}`)}
        </span>
      </div>
      <dl className="pa-facts">
        <dt>{t('proactive.connectors.events24h')}</dt>
        <dd>{fmt.number(c.events_24h)}</dd>
        <dt>{t('proactive.connectors.lastActivity')}</dt>
        <dd>{fmt.dateTime(c.last_activity_at) || t('proactive.connectors.never')}</dd>
        {c.polls && c.next_poll_at && (
          <>
            <dt>{t('proactive.connectors.nextPoll')}</dt>
            <dd>{fmt.dateTime(c.next_poll_at)}</dd>
          </>
        )}
        {c.last_error && (
          <>
            <dt>{t('proactive.connectors.lastError')}</dt>
            <dd>
              {c.last_error} {c.last_error_code && <code>({c.last_error_code})</code>}
            </dd>
          </>
        )}
        {c.key_id && (
          <>
            <dt>{t('proactive.connectors.keyId')}</dt>
            <dd>
              <code>{c.key_id}</code>
            </dd>
          </>
        )}
        {c.secrets.map((s) => (
          <Fragment key={s.name}>
            <dt>{t(`proactive.fields.${s.name}`)}</dt>
            <dd>
              <code>{t('proactive.endsWith', { last4: s.last4 })}</code>
            </dd>
          </Fragment>
        ))}
        {Object.entries(c.config).map(([k, v]) => (
          <Fragment key={k}>
            <dt>{t(`proactive.fields.${k}`, { defaultValue: k })}</dt>
            <dd>{String(v)}</dd>
          </Fragment>
        ))}
      </dl>
      {c.ingest_url && (
        <CopyValue
          value={c.ingest_url}
          label={t('proactive.connectors.ingestUrl')}
          action={t('proactive.connectors.copyIngest')}
          texts={copyTexts(t)}
        />
      )}
      {c.webhook_url && (
        <CopyValue
          value={c.webhook_url}
          label={t('proactive.connectors.webhookUrl')}
          action={t('proactive.connectors.copyWebhook')}
          texts={copyTexts(t)}
        />
      )}
      {canChange && (
        <div className="row">
          <Button pending={test.isPending} onClick={() => test.mutate()}>
            {t('proactive.connectors.test')}
          </Button>
          <Button pending={pause.isPending} onClick={() => pause.mutate()}>
            {c.status === 'paused' ? t('proactive.connectors.resume') : t('proactive.connectors.pause')}
          </Button>
          {c.kind === 'endpoint' && (
            <Button onClick={() => setAsking('rotate')}>{t('proactive.connectors.rotate')}</Button>
          )}
          {c.kind !== 'endpoint' && <Button onClick={() => setAsking('edit')}>{t('proactive.connectors.edit')}</Button>}
          <Button variant="danger" onClick={() => setAsking('delete')}>
            {t('proactive.connectors.delete')}
          </Button>
        </div>
      )}
      <ActionError error={test.error ?? pause.error} />
      {r && !test.isPending && (
        <div
          className={`alert ${r.ok === true ? 'alert-success' : r.ok === false ? 'alert-error' : 'alert-info'}`}
          role="status"
        >
          <strong>
            {r.ok === true
              ? t('proactive.connectors.testOk')
              : r.ok === false
                ? t('proactive.connectors.testFailed')
                : t('proactive.connectors.testNothing')}
          </strong>
          <div>{t(`proactive.connectors.testCodes.${r.code}`, { defaultValue: r.message })}</div>
          {typeof r.details.last_delivery_at === 'string' && (
            <div>{t('proactive.connectors.lastDelivery', { at: fmt.dateTime(r.details.last_delivery_at) })}</div>
          )}
          <div className="code">{t('proactive.connectors.code', { code: r.code })}</div>
        </div>
      )}
      {asking === 'rotate' && (
        <ConfirmDialog
          title={t('proactive.connectors.rotateTitle')}
          confirm={t('proactive.connectors.rotateConfirm')}
          pending={rotate.isPending}
          error={rotate.error}
          onConfirm={() => rotate.mutate()}
          onClose={() => {
            setAsking(null);
            rotate.reset();
          }}
        >
          <p>{t('proactive.connectors.rotateBody')}</p>
        </ConfirmDialog>
      )}
      {asking === 'delete' && (
        <ConfirmDialog
          title={t('proactive.connectors.deleteTitle', { name: c.name })}
          confirm={t('proactive.connectors.deleteConfirm')}
          danger
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate()}
          onClose={() => {
            setAsking(null);
            remove.reset();
          }}
        >
          <p>{t('proactive.connectors.deleteBody')}</p>
        </ConfirmDialog>
      )}
      {asking === 'edit' && (
        <EditConnector
          connector={c}
          onClose={() => setAsking(null)}
          onSaved={(next) => {
            put(next);
            setAsking(null);
          }}
        />
      )}
    </section>
  );
}

/** The kind's config fields and write-only secrets (blank secrets are not sent: the stored ones stay). */
function KindFields({
  kind,
  config,
  secrets,
  setConfig,
  setSecrets,
  error,
  stored,
  fixed,
}: {
  kind: Kind;
  config: Record<string, string>;
  secrets: Record<string, string>;
  setConfig: (c: Record<string, string>) => void;
  setSecrets: (s: Record<string, string>) => void;
  error: unknown;
  stored?: Connector['secrets'];
  fixed?: string[];
}) {
  const { t } = useTranslation();
  const fields = FIELDS[kind];
  return (
    <>
      {fields.config.map((f) => (
        <TextField
          key={f}
          label={t(`proactive.fields.${f}`)}
          value={config[f] ?? ''}
          readOnly={fixed?.includes(f)}
          hint={t(`proactive.hints.${f}`, { defaultValue: '' }) || undefined}
          onChange={(e) => setConfig({ ...config, [f]: e.target.value })}
          error={settingsIssue(error, `config.${f}`)}
        />
      ))}
      {fields.secrets.map((f) => {
        const last4 = stored?.find((s) => s.name === f)?.last4;
        return (
          <TextField
            key={f}
            label={t(`proactive.fields.${f}`)}
            type="password"
            autoComplete="off"
            value={secrets[f] ?? ''}
            hint={last4 ? t('proactive.keepSecret', { last4 }) : t('proactive.writeOnly')}
            onChange={(e) => setSecrets({ ...secrets, [f]: e.target.value })}
            error={settingsIssue(error, `secrets.${f}`)}
          />
        );
      })}
    </>
  );
}

const filled = (o: Record<string, string>) =>
  Object.fromEntries(
    Object.entries(o)
      .map(([k, v]) => [k, v.trim()])
      .filter(([, v]) => v),
  );

function CreateConnector({ workspaceId, onToken }: { workspaceId: string; onToken: (token: string) => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [kind, setKind] = useState<Kind>('endpoint');
  const [name, setName] = useState('');
  const [config, setConfig] = useState<Record<string, string>>({});
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  // CloudWatch: the role's trust policy must name this workspace's external id.
  const setup = useQuery({
    queryKey: [...proactiveKeys.connectors(workspaceId), 'cloud-logs-setup'],
    queryFn: () =>
      data(api.GET('/v1/connectors/setup/cloud_logs', { params: { query: { workspace_id: workspaceId } } })),
    enabled: kind === 'cloud_logs',
  });
  const create = useMutation({
    mutationFn: () => {
      const cfg =
        kind === 'cloud_logs' && setup.data
          ? { ...filled(config), external_id: setup.data.external_id }
          : filled(config);
      const body: RequestBody<'/v1/connectors', 'post'> = {
        workspace_id: workspaceId,
        kind,
        name: name.trim(),
        config: cfg,
        secrets: filled(secrets),
      };
      return data(api.POST('/v1/connectors', { body }));
    },
    onSuccess: (r) => {
      toast.success(t('proactive.connectors.created'));
      setName('');
      setConfig({});
      setSecrets({});
      void client.invalidateQueries({ queryKey: proactiveKeys.connectors(workspaceId) });
      if (r.token) onToken(r.token);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <form className="card stack" onSubmit={submit} noValidate aria-labelledby="pa-new-connector">
      <h3 id="pa-new-connector">{t('proactive.connectors.create')}</h3>
      <ActionError error={create.error} fields={['name', 'kind']} />
      <div className="pa-fields">
        <SelectField
          label={t('proactive.connectors.kind')}
          value={kind}
          hint={t(`proactive.kindHints.${kind}`)}
          onChange={(e) => {
            setKind(e.target.value as Kind);
            setConfig({});
            setSecrets({});
            create.reset();
          }}
        >
          {KINDS.map((k) => (
            <option key={k} value={k}>
              {t(`proactive.kinds.${k}`)}
            </option>
          ))}
        </SelectField>
        <TextField
          label={t('proactive.connectors.name')}
          value={name}
          onChange={(e) => setName(e.target.value)}
          error={fieldError(create.error, 'name')}
        />
        <KindFields
          kind={kind}
          config={kind === 'cloud_logs' && setup.data ? { ...config, external_id: setup.data.external_id } : config}
          secrets={secrets}
          setConfig={setConfig}
          setSecrets={setSecrets}
          error={create.error}
          fixed={['external_id']}
        />
      </div>
      {kind === 'cloud_logs' && setup.data && (
        <details className="stack">
          <summary>{t('proactive.connectors.cloudSetup')}</summary>
          <p>{t('proactive.connectors.cloudSetupBody', { principal: setup.data.principal_arn })}</p>
          <TextArea label={t('proactive.connectors.trustPolicy')} readOnly rows={8} value={setup.data.trust_policy} />
          <TextArea
            label={t('proactive.connectors.permissionsPolicy')}
            readOnly
            rows={8}
            value={setup.data.permissions_policy}
          />
        </details>
      )}
      <div>
        <Button type="submit" variant="primary" pending={create.isPending}>
          {t('proactive.connectors.createSubmit')}
        </Button>
      </div>
    </form>
  );
}

/** Reads the connector again (someone may have changed it since the list loaded), then its form. */
function EditConnector({
  connector,
  onClose,
  onSaved,
}: {
  connector: Connector;
  onClose: () => void;
  onSaved: (c: Connector) => void;
}) {
  const { t } = useTranslation();
  const fresh = useQuery({
    queryKey: [...proactiveKeys.connectors(connector.workspace_id), 'detail', connector.id],
    queryFn: () => data(api.GET('/v1/connectors/{id}', { params: { path: { id: connector.id } } })),
    gcTime: 0,
  });
  return (
    <Dialog open title={t('proactive.connectors.editTitle', { name: connector.name })} onClose={onClose}>
      {fresh.isPending ? (
        <LoadingState />
      ) : fresh.isError ? (
        <ErrorState error={fresh.error} retry={() => void fresh.refetch()} />
      ) : (
        <EditForm connector={fresh.data} onClose={onClose} onSaved={onSaved} />
      )}
    </Dialog>
  );
}

/** Name, settings and secrets (only the secrets typed are replaced). */
function EditForm({
  connector: c,
  onClose,
  onSaved,
}: {
  connector: Connector;
  onClose: () => void;
  onSaved: (c: Connector) => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const [name, setName] = useState(c.name);
  const [config, setConfig] = useState<Record<string, string>>(() =>
    Object.fromEntries(Object.entries(c.config).map(([k, v]) => [k, String(v ?? '')])),
  );
  const [secrets, setSecrets] = useState<Record<string, string>>({});
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PATCH('/v1/connectors/{id}', {
          params: { path: { id: c.id } },
          body: { name: name.trim(), config: filled(config), secrets: filled(secrets) },
        }),
      ),
    onSuccess: (next) => {
      toast.success(t('proactive.connectors.saved'));
      onSaved(next);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  return (
    <form className="stack" onSubmit={submit} noValidate>
      <ActionError error={save.error} fields={['name']} />
      <TextField
        label={t('proactive.connectors.name')}
        value={name}
        onChange={(e) => setName(e.target.value)}
        error={fieldError(save.error, 'name')}
      />
      <KindFields
        kind={c.kind}
        config={config}
        secrets={secrets}
        setConfig={setConfig}
        setSecrets={setSecrets}
        error={save.error}
        stored={c.secrets}
        fixed={['external_id']}
      />
      <div className="row">
        <Button type="submit" variant="primary" pending={save.isPending}>
          {t('proactive.save')}
        </Button>
        <Button onClick={onClose}>{t('proactive.cancel')}</Button>
      </div>
    </form>
  );
}
