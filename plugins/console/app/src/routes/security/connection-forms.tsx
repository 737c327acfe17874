/** The forms of an SSO connection: a new one (OIDC or SAML) and the changes to one. */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody } from '../../api/types';
import { securityKeys, type SsoConnection } from '../../queries/security';
import {
  CheckboxField,
  ErrorAlert,
  Form,
  FormActions,
  SelectField,
  TextArea,
  TextField,
  fieldError,
  useToast,
} from '../../ui';

type Protocol = SsoConnection['protocol'];

type CreateBody = RequestBody<'/v1/security/sso/connections', 'post'>;

const JIT_ROLES = ['reviewer', 'admin'] as const;
type JitRole = (typeof JIT_ROLES)[number];

/** "a.com, b.com" → ['a.com', 'b.com']. */
const domainList = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((d) => d.trim())
    .filter(Boolean);

export function CreateConnection({ onDone }: { onDone: () => void }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [protocol, setProtocol] = useState<Protocol>('oidc');
  const [f, setF] = useState({
    name: '',
    domains: '',
    default_role: 'reviewer' as JitRole,
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
          : { protocol, ...common, ...saml };
      return data(api.POST('/v1/security/sso/connections', { body }));
    },
    onSuccess: (c) => {
      toast.success(t('security.connections.created', { name: c.name }));
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
      onDone();
    },
  });
  const err = (k: string) => fieldError(create.error, k);
  return (
    <Form className="stack sec-subcard" onSubmit={() => create.mutate()} aria-labelledby="sso-new">
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
        <DomainsField f={f} set={set} err={err} />
        {protocol === 'oidc' ? (
          <OidcFields f={f} set={set} err={err} />
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
            <SamlFields f={f} set={set} err={err} />
          </>
        )}
        <JitRoleSelect value={f.default_role} onChange={(default_role) => setF({ ...f, default_role })} />
      </div>
      <CheckboxField
        label={t('security.connections.jit')}
        hint={t('security.connections.jitHint')}
        checked={f.jit_enabled}
        onChange={(e) => setF({ ...f, jit_enabled: e.target.checked })}
      />
      <FormActions submit={t('security.connections.create')} pending={create.isPending} onCancel={onDone} />
    </Form>
  );
}

/** Name, who is created on first sign-in (owners and admins); provider settings and domains (owners). */
/** The JIT role a connection gives, as the form offers it. */
const jitRole = (role: string | null | undefined): JitRole => (role === 'admin' ? 'admin' : 'reviewer');

export function EditConnection({
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
    default_role: jitRole(c.default_role),
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
  const err = (k: string) => fieldError(save.error, k);
  return (
    <Form
      className="stack"
      onSubmit={() => save.mutate()}
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
        <JitRoleSelect value={f.default_role} onChange={(default_role) => setF({ ...f, default_role })} />
        {owner && (
          <>
            <DomainsField f={f} set={set} err={err} />
            {c.protocol === 'oidc' ? (
              <OidcFields f={f} set={set} err={err} changing />
            ) : (
              <SamlFields f={f} set={set} err={err} changing />
            )}
          </>
        )}
      </div>
      <CheckboxField
        label={t('security.connections.jit')}
        checked={f.jit_enabled}
        onChange={(e) => setF({ ...f, jit_enabled: e.target.checked })}
      />
      <FormActions submit={t('common.save')} pending={save.isPending} onCancel={onDone} />
    </Form>
  );
}

/** The roles a connection may give the people it creates on first sign-in. */
function JitRoleSelect({ value, onChange }: { value: JitRole; onChange: (role: JitRole) => void }) {
  const { t } = useTranslation();
  return (
    <SelectField
      label={t('security.connections.defaultRole')}
      value={value}
      onChange={(e) => onChange(e.target.value as JitRole)}
    >
      {JIT_ROLES.map((r) => (
        <option key={r} value={r}>
          {t(`roles.${r}`)}
        </option>
      ))}
    </SelectField>
  );
}

/** A form's fields and how it sets and checks them, as both connection forms hold them. */
interface FieldsOf<K extends string> {
  f: Record<K, string>;
  set: (k: K) => (e: { target: { value: string } }) => void;
  err: (k: string) => string | undefined;
  /** A change to a connection: a blank secret or certificate keeps the stored one. */
  changing?: boolean;
}

/** The email domains whose people sign in through the connection ("a.com, b.com"). */
function DomainsField({ f, set, err }: FieldsOf<'domains'>) {
  const { t } = useTranslation();
  return (
    <TextField
      label={t('security.connections.domains')}
      hint={t('security.connections.domainsHint')}
      value={f.domains}
      onChange={set('domains')}
      error={err('domains')}
    />
  );
}

/** The OIDC provider's issuer, client id and client secret. */
function OidcFields({ f, set, err, changing }: FieldsOf<'issuer' | 'client_id' | 'client_secret'>) {
  const { t } = useTranslation();
  return (
    <>
      <TextField
        label={t('security.connections.issuer')}
        hint={changing ? undefined : t('security.connections.issuerHint')}
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
        label={changing ? t('security.connections.newSecret') : t('security.connections.clientSecret')}
        hint={changing ? t('security.connections.keepSecret') : undefined}
        type="password"
        autoComplete="off"
        value={f.client_secret}
        onChange={set('client_secret')}
        error={err('client_secret')}
      />
    </>
  );
}

/** The SAML provider's sign-in URL and certificate (a new connection may give its metadata instead, above them). */
function SamlFields({ f, set, err, changing }: FieldsOf<'sso_url' | 'certificate'>) {
  const { t } = useTranslation();
  return (
    <>
      <TextField
        label={t('security.connections.ssoUrl')}
        type="url"
        value={f.sso_url}
        onChange={set('sso_url')}
        error={err('sso_url')}
      />
      <TextArea
        label={changing ? t('security.connections.newCertificate') : t('security.connections.certificate')}
        hint={changing ? t('security.connections.keepCertificate') : undefined}
        rows={4}
        value={f.certificate}
        onChange={set('certificate')}
        error={err('certificate')}
      />
    </>
  );
}
