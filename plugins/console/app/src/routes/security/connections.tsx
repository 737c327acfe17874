import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { securityKeys, type SsoConnection, type SsoOverview } from '../../queries/security';
import {
  Button,
  ConfirmAction,
  CopyValue,
  ErrorAlert,
  Form,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { useCopyTexts } from './copy-texts';
import { CreateConnection, EditConnection } from './connection-forms';

type TestResult = Schema<'SsoConnectionTest'>;

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

function RemoveConnection({ connection: c }: { connection: SsoConnection }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/security/sso/connections/{id}', { params: { path: { id: c.id } } })),
    onSuccess: () => {
      toast.success(t('security.connections.deleted', { name: c.name }));
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
    },
  });
  return (
    <ConfirmAction
      label={t('security.connections.delete')}
      title={t('security.connections.deleteTitle', { name: c.name })}
      confirm={t('security.connections.deleteConfirm')}
      danger
      action={remove}
    >
      <p>{t('security.connections.deleteBody')}</p>
    </ConfirmAction>
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
    <Form
      className="row sec-inline"
      aria-label={t('security.unlink.title', { name: c.name })}
      onSubmit={() => unlink.mutate()}
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
    </Form>
  );
}
