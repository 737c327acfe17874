import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody, Schema } from '../../api/types';
import { securityKeys, type SsoConnection, type SsoOverview } from '../../queries/security';
import {
  Button,
  CheckboxField,
  ConfirmDialog,
  CopyValue,
  ErrorAlert,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { useCopyTexts } from './copy-texts';

type Protocol = SsoConnection['protocol'];
type CreateBody = RequestBody<'/v1/security/sso/connections', 'post'>;
type TestResult = Schema<'SsoConnectionTest'>;
const JIT_ROLES = ['reviewer', 'admin'] as const;

/** "a.com, b.com" → ['a.com', 'b.com']. */
const domainList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);

/** The organization's connections, each with what its identity provider needs; a new one (owners). */
export function Connections({ sso, owner }: { sso: SsoOverview; owner: boolean }) {
  const { t } = useTranslation();
  const [adding, setAdding] = useState(false);
  return (
    <section className="card stack" aria-labelledby="sso-connections">
      <div className="spread">
        <h2 id="sso-connections">{t('security.connections.title')}</h2>
        {owner && !adding && (
          <Button variant="primary" onClick={() => setAdding(true)}>
            {t('security.connections.add')}
          </Button>
        )}
      </div>
      {sso.connections.length === 0 && <p className="muted">{t('security.connections.none')}</p>}
      {sso.connections.map((c) => (
        <Connection key={c.id} connection={c} owner={owner} />
      ))}
      {adding && <CreateConnection onDone={() => setAdding(false)} />}
    </section>
  );
}

function CreateConnection({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [protocol, setProtocol] = useState<Protocol>('oidc');
  const [f, setF] = useState({
    name: '',
    domains: '',
    default_role: 'reviewer' as (typeof JIT_ROLES)[number],
    jit_enabled: false,
    issuer: '',
    client_id: '',
    client_secret: '',
    metadata_xml: '',
    entity_id: '',
    sso_url: '',
    certificate: '',
  });
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const create = useMutation({
    mutationFn: () => {
      const common = {
        name: f.name.trim(),
        domains: domainList(f.domains),
        default_role: f.default_role,
        jit_enabled: f.jit_enabled,
      };
      // SAML takes the IdP's metadata, or its entity id, sign-in URL and certificate (fields given beside the metadata win).
      const saml = Object.fromEntries(
        (['metadata_xml', 'entity_id', 'sso_url', 'certificate'] as const)
          .filter((k) => f[k].trim())
          .map((k) => [k, f[k].trim()]),
      );
      const body: CreateBody =
        protocol === 'oidc'
          ? {
              protocol,
              ...common,
              issuer: f.issuer.trim(),
              client_id: f.client_id.trim(),
              client_secret: f.client_secret,
            }
          : ({ protocol, ...common, ...saml } as CreateBody);
      return data(api.POST('/v1/security/sso/connections', { body }));
    },
    onSuccess: (c) => {
      toast.success(t('security.connections.created', { name: c.name }));
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  const err = (k: string) => fieldError(create.error, k);
  return (
    <form className="stack sec-subcard" onSubmit={submit} noValidate aria-labelledby="sso-new">
      <h3 id="sso-new">{t('security.connections.new')}</h3>
      <ErrorAlert
        error={create.error}
        fields={[
          'protocol',
          'name',
          'domains',
          'default_role',
          'issuer',
          'client_id',
          'client_secret',
          'metadata_xml',
          'entity_id',
          'sso_url',
          'certificate',
        ]}
      />
      <div className="ws-fields">
        <SelectField
          label={t('security.connections.protocol')}
          value={protocol}
          onChange={(e) => setProtocol(e.target.value as Protocol)}
        >
          <option value="oidc">OpenID Connect (OIDC)</option>
          <option value="saml">SAML 2.0</option>
        </SelectField>
        <TextField label={t('security.connections.name')} value={f.name} onChange={set('name')} error={err('name')} />
        <TextField
          label={t('security.connections.domains')}
          hint={t('security.connections.domainsHint')}
          value={f.domains}
          onChange={set('domains')}
          error={err('domains')}
        />
        {protocol === 'oidc' ? (
          <>
            <TextField
              label={t('security.connections.issuer')}
              hint={t('security.connections.issuerHint')}
              type="url"
              value={f.issuer}
              onChange={set('issuer')}
              error={err('issuer')}
            />
            <TextField
              label={t('security.connections.clientId')}
              value={f.client_id}
              onChange={set('client_id')}
              error={err('client_id')}
            />
            <TextField
              label={t('security.connections.clientSecret')}
              type="password"
              autoComplete="off"
              value={f.client_secret}
              onChange={set('client_secret')}
              error={err('client_secret')}
            />
          </>
        ) : (
          <>
            <TextArea
              label={t('security.connections.metadata')}
              hint={t('security.connections.metadataHint')}
              rows={4}
              value={f.metadata_xml}
              onChange={set('metadata_xml')}
              error={err('metadata_xml')}
            />
            <TextField
              label={t('security.connections.entityId')}
              value={f.entity_id}
              onChange={set('entity_id')}
              error={err('entity_id')}
            />
            <TextField
              label={t('security.connections.ssoUrl')}
              type="url"
              value={f.sso_url}
              onChange={set('sso_url')}
              error={err('sso_url')}
            />
            <TextArea
              label={t('security.connections.certificate')}
              rows={4}
              value={f.certificate}
              onChange={set('certificate')}
              error={err('certificate')}
            />
          </>
        )}
        <SelectField
          label={t('security.connections.defaultRole')}
          value={f.default_role}
          onChange={(e) => setF({ ...f, default_role: e.target.value as (typeof JIT_ROLES)[number] })}
        >
          {JIT_ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`roles.${r}`)}
            </option>
          ))}
        </SelectField>
      </div>
      <CheckboxField
        label={t('security.connections.jit')}
        hint={t('security.connections.jitHint')}
        checked={f.jit_enabled}
        onChange={(e) => setF({ ...f, jit_enabled: e.target.checked })}
      />
      <div className="row">
        <Button type="submit" variant="primary" pending={create.isPending}>
          {t('security.connections.create')}
        </Button>
        <Button onClick={onDone}>{t('common.cancel')}</Button>
      </div>
    </form>
  );
}

/** One connection: its facts, what the identity provider needs (copy buttons), test, change, unlink, delete. */
function Connection({ connection: c, owner }: { connection: SsoConnection; owner: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const copy = useCopyTexts();
  const [editing, setEditing] = useState(false);
  const sp = c.service_provider;
  const headingId = `sso-conn-${c.id}`;
  const needs: [string, string][] =
    c.protocol === 'oidc'
      ? [['redirectUri', sp.redirect_uri]]
      : [
          ['entityId', sp.entity_id],
          ['acsUrl', sp.acs_url],
          ['metadataUrl', sp.metadata_url],
          ['loginUrl', sp.login_url],
        ];
  return (
    <article className="stack sec-subcard" aria-labelledby={headingId}>
      <div className="spread">
        <h3 id={headingId}>{c.name}</h3>
        <span className="badge">{c.protocol === 'oidc' ? 'OIDC' : 'SAML'}</span>
      </div>
      <dl className="ws-facts">
        <dt>{c.protocol === 'oidc' ? t('security.connections.issuer') : t('security.connections.entityId')}</dt>
        <dd>{c.issuer ?? '—'}</dd>
        {c.protocol === 'oidc' && (
          <>
            <dt>{t('security.connections.clientId')}</dt>
            <dd>{c.client_id}</dd>
          </>
        )}
        {c.protocol === 'saml' && (
          <>
            <dt>{t('security.connections.ssoUrl')}</dt>
            <dd>{c.idp_sso_url ?? '—'}</dd>
          </>
        )}
        {c.certificate_expires_at && (
          <>
            <dt>{t('security.connections.certificateExpires')}</dt>
            <dd>{fmt.date(c.certificate_expires_at)}</dd>
          </>
        )}
        <dt>{t('security.connections.domains')}</dt>
        <dd>{c.domains.join(', ') || '—'}</dd>
        <dt>{t('security.connections.newMembers')}</dt>
        <dd>
          {c.jit_enabled
            ? t('security.connections.jitOn', { role: t(`roles.${c.default_role}`) })
            : t('security.connections.jitOff')}
        </dd>
        <dt>{t('security.connections.linked')}</dt>
        <dd>{fmt.number(c.linked_accounts)}</dd>
        <dt>{t('security.connections.lastLogin')}</dt>
        <dd>{fmt.dateTime(c.last_login_at) || t('security.never')}</dd>
      </dl>
      <div className="stack sec-needs">
        <h4>{t(`security.connections.needs.${c.protocol}`)}</h4>
        {needs.map(([k, v]) => (
          <div key={k} className="field">
            <span className="sec-label">{t(`security.connections.sp.${k}`)}</span>
            <CopyValue
              value={v}
              label={t(`security.connections.sp.${k}`)}
              texts={copy}
              action={t('security.copyThe', { what: t(`security.connections.sp.${k}`) })}
            />
          </div>
        ))}
      </div>
      <TestConnection id={c.id} />
      {editing ? (
        <EditConnection connection={c} owner={owner} onDone={() => setEditing(false)} />
      ) : (
        <div className="row">
          <Button onClick={() => setEditing(true)}>{t('security.connections.edit')}</Button>
          {owner && <RemoveConnection connection={c} />}
        </div>
      )}
      {owner && c.linked_accounts > 0 && <Unlink connection={c} />}
    </article>
  );
}

/** Runs the check and says in words what failed and what to fix. */
function TestConnection({ id }: { id: string }) {
  const { t } = useTranslation();
  const test = useMutation({
    mutationFn: () => data(api.POST('/v1/security/sso/connections/{id}/test', { params: { path: { id } } })),
  });
  const r: TestResult | undefined = test.data;
  const details = r ? Object.entries(r.details).filter(([, v]) => v != null && typeof v !== 'object') : [];
  return (
    <div className="stack">
      <div>
        <Button pending={test.isPending} onClick={() => test.mutate()}>
          {t('security.test.run')}
        </Button>
      </div>
      <ErrorAlert error={test.error} />
      <div aria-live="polite">
        {r && !test.isPending && (
          <div className={`alert ${r.ok ? 'alert-success' : 'alert-error'}`} role="status">
            <strong>
              {r.ok
                ? t(`security.test.ok.${r.protocol}`)
                : t(`security.test.errors.${r.error ?? 'discovery_failed'}.what`)}
            </strong>
            {!r.ok && <div>{t(`security.test.errors.${r.error ?? 'discovery_failed'}.fix`)}</div>}
            {details.length > 0 && (
              <dl className="ws-facts sec-details">
                {details.map(([k, v]) => (
                  <div key={k} className="sec-detail">
                    <dt>{k}</dt>
                    <dd>{String(v)}</dd>
                  </div>
                ))}
              </dl>
            )}
          </div>
        )}
      </div>
    </div>
  );
}

/** Name, who is created on first sign-in (owners and admins); provider settings and domains (owners). */
function EditConnection({
  connection: c,
  owner,
  onDone,
}: {
  connection: SsoConnection;
  owner: boolean;
  onDone: () => void;
}) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const initial = {
    name: c.name,
    default_role: (c.default_role === 'admin' ? 'admin' : 'reviewer') as (typeof JIT_ROLES)[number],
    jit_enabled: c.jit_enabled,
    domains: c.domains.join(', '),
    issuer: c.issuer ?? '',
    client_id: c.client_id ?? '',
    client_secret: '',
    sso_url: c.idp_sso_url ?? '',
    certificate: '',
  };
  const [f, setF] = useState(initial);
  const set = (k: keyof typeof f) => (e: { target: { value: string } }) => setF({ ...f, [k]: e.target.value });
  const save = useMutation({
    mutationFn: () => {
      // Only what changed: admins may send the first three, and a blank secret or certificate keeps the stored one.
      const body: RequestBody<'/v1/security/sso/connections/{id}', 'patch'> = {};
      if (f.name.trim() !== c.name) body.name = f.name.trim();
      if (f.default_role !== initial.default_role) body.default_role = f.default_role;
      if (f.jit_enabled !== c.jit_enabled) body.jit_enabled = f.jit_enabled;
      if (owner) {
        if (f.domains !== initial.domains) body.domains = domainList(f.domains);
        if (c.protocol === 'oidc' && f.issuer.trim() !== initial.issuer) body.issuer = f.issuer.trim();
        if (c.protocol === 'oidc' && f.client_id.trim() !== initial.client_id) body.client_id = f.client_id.trim();
        if (c.protocol === 'oidc' && f.client_secret) body.client_secret = f.client_secret;
        if (c.protocol === 'saml' && f.sso_url.trim() !== initial.sso_url) body.sso_url = f.sso_url.trim();
        if (c.protocol === 'saml' && f.certificate.trim()) body.certificate = f.certificate.trim();
      }
      return data(api.PATCH('/v1/security/sso/connections/{id}', { params: { path: { id: c.id } }, body }));
    },
    onSuccess: () => {
      toast.success(t('security.connections.saved'));
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
      onDone();
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save.mutate();
  };
  const err = (k: string) => fieldError(save.error, k);
  return (
    <form
      className="stack"
      onSubmit={submit}
      noValidate
      aria-label={t('security.connections.editOf', { name: c.name })}
    >
      <ErrorAlert
        error={save.error}
        fields={[
          'name',
          'domains',
          'default_role',
          'jit_enabled',
          'issuer',
          'client_id',
          'client_secret',
          'sso_url',
          'certificate',
        ]}
      />
      <div className="ws-fields">
        <TextField label={t('security.connections.name')} value={f.name} onChange={set('name')} error={err('name')} />
        <SelectField
          label={t('security.connections.defaultRole')}
          value={f.default_role}
          onChange={(e) => setF({ ...f, default_role: e.target.value as (typeof JIT_ROLES)[number] })}
        >
          {JIT_ROLES.map((r) => (
            <option key={r} value={r}>
              {t(`roles.${r}`)}
            </option>
          ))}
        </SelectField>
        {owner && (
          <>
            <TextField
              label={t('security.connections.domains')}
              hint={t('security.connections.domainsHint')}
              value={f.domains}
              onChange={set('domains')}
              error={err('domains')}
            />
            {c.protocol === 'oidc' ? (
              <>
                <TextField
                  label={t('security.connections.issuer')}
                  type="url"
                  value={f.issuer}
                  onChange={set('issuer')}
                  error={err('issuer')}
                />
                <TextField
                  label={t('security.connections.clientId')}
                  value={f.client_id}
                  onChange={set('client_id')}
                  error={err('client_id')}
                />
                <TextField
                  label={t('security.connections.newSecret')}
                  hint={t('security.connections.keepSecret')}
                  type="password"
                  autoComplete="off"
                  value={f.client_secret}
                  onChange={set('client_secret')}
                  error={err('client_secret')}
                />
              </>
            ) : (
              <>
                <TextField
                  label={t('security.connections.ssoUrl')}
                  type="url"
                  value={f.sso_url}
                  onChange={set('sso_url')}
                  error={err('sso_url')}
                />
                <TextArea
                  label={t('security.connections.newCertificate')}
                  hint={t('security.connections.keepCertificate')}
                  rows={4}
                  value={f.certificate}
                  onChange={set('certificate')}
                  error={err('certificate')}
                />
              </>
            )}
          </>
        )}
      </div>
      <CheckboxField
        label={t('security.connections.jit')}
        checked={f.jit_enabled}
        onChange={(e) => setF({ ...f, jit_enabled: e.target.checked })}
      />
      <div className="row">
        <Button type="submit" variant="primary" pending={save.isPending}>
          {t('common.save')}
        </Button>
        <Button onClick={onDone}>{t('common.cancel')}</Button>
      </div>
    </form>
  );
}

function RemoveConnection({ connection: c }: { connection: SsoConnection }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/security/sso/connections/{id}', { params: { path: { id: c.id } } })),
    onSuccess: () => {
      setAsking(false);
      toast.success(t('security.connections.deleted', { name: c.name }));
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
    },
  });
  return (
    <>
      <Button variant="danger" onClick={() => setAsking(true)}>
        {t('security.connections.delete')}
      </Button>
      {asking && (
        <ConfirmDialog
          title={t('security.connections.deleteTitle', { name: c.name })}
          confirm={t('security.connections.deleteConfirm')}
          danger
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate()}
          onClose={() => {
            setAsking(false);
            remove.reset();
          }}
        >
          <p>{t('security.connections.deleteBody')}</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** Forgets one person's link to the identity provider: their next sign-in links again. */
function Unlink({ connection: c }: { connection: SsoConnection }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [email, setEmail] = useState('');
  const unlink = useMutation({
    mutationFn: () =>
      data(
        api.POST('/v1/security/sso/connections/{id}/unlink', {
          params: { path: { id: c.id } },
          body: { email: email.trim() },
        }),
      ),
    onSuccess: () => {
      toast.success(t('security.unlink.done', { email: email.trim() }));
      setEmail('');
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
    },
  });
  return (
    <form
      className="row sec-inline"
      noValidate
      aria-label={t('security.unlink.title', { name: c.name })}
      onSubmit={(e) => {
        e.preventDefault();
        unlink.mutate();
      }}
    >
      <TextField
        label={t('security.unlink.email')}
        hint={t('security.unlink.hint')}
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={fieldError(unlink.error, 'email')}
      />
      <Button type="submit" pending={unlink.isPending}>
        {t('security.unlink.submit')}
      </Button>
      <ErrorAlert error={unlink.error} fields={['email']} />
    </form>
  );
}
