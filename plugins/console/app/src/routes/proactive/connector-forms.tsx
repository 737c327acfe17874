/** The forms of a connector: its kind's fields, a new connector (with its token, shown once) and the changes to one. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { proactiveKeys, type Connector } from '../../queries/proactive';
import {
  Button,
  Dialog,
  Form,
  FormActions,
  QueryView,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useToast,
} from '../../ui';
import { ActionError, settingsIssue } from './parts';

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

/** The fields with a value, trimmed. */
const filled = (o: Record<string, string>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(o)
      .map(([k, v]): [string, string] => [k, v.trim()])
      .filter(([, v]) => v),
  );

/** A config value as its input shows it. */
function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return v === null || v === undefined ? '' : JSON.stringify(v);
}

export function CreateConnector({ workspaceId, onToken }: { workspaceId: string; onToken: (token: string) => void }) {
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
  return (
    <Form className="card stack" onSubmit={() => create.mutate()} aria-labelledby="pa-new-connector">
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
      <FormActions submit={t('proactive.connectors.createSubmit')} pending={create.isPending} />
    </Form>
  );
}

/** Reads the connector again (someone may have changed it since the list loaded), then its form. */
export function EditConnector({
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
      <QueryView query={fresh}>
        {(current) => <EditForm connector={current} onClose={onClose} onSaved={onSaved} />}
      </QueryView>
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
    Object.fromEntries(Object.entries(c.config).map(([k, v]) => [k, asText(v)])),
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
  return (
    <Form className="stack" onSubmit={() => save.mutate()}>
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
    </Form>
  );
}
