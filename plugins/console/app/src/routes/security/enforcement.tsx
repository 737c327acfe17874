import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { isApiError } from '../../api/errors';
import type { Schema } from '../../api/types';
import { securityKeys, type SecurityOverview, type SsoOverview } from '../../queries/security';
import {
  Button,
  ConfirmAction,
  ConfirmDialog,
  ErrorAlert,
  Form,
  SecretOnce,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';

type Blocker = SsoOverview['enforcement']['blockers'][number];
type Codes = Schema<'SsoRecoveryCodes'>;

/** What stands in the way of requiring single sign-on, each in words with what to do. */
function Blockers({ blockers }: { blockers: Blocker[] }) {
  const { t } = useTranslation();
  return (
    <ul className="sec-blockers">
      {blockers.map((b) => (
        <li key={b.code}>
          <strong>
            {t(`security.enforcement.blockers.${b.code}.what`, { count: b.total ?? b.members?.length ?? 0 })}
          </strong>
          <div>{t(`security.enforcement.blockers.${b.code}.fix`)}</div>
          {b.members && b.members.length > 0 && (
            <ul>
              {b.members.map((m) => (
                <li key={m.id}>
                  {m.name ? `${m.name} <${m.email}>` : m.email} · {t(`roles.${m.role}`)}
                </li>
              ))}
              {(b.total ?? 0) > b.members.length && (
                <li>{t('security.enforcement.more', { count: (b.total ?? 0) - b.members.length })}</li>
              )}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The recovery codes shown once, with copy and a file to keep. */
function ShowCodes({ codes, onClose }: { codes: Codes; onClose: () => void }) {
  const { t } = useTranslation();
  const text = codes.codes.join('\n');
  const download = () => {
    const url = URL.createObjectURL(new Blob([`${text}\n`], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'patchwell-recovery-codes.txt';
    a.click();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  };
  return (
    <SecretOnce
      secret={text}
      onClose={onClose}
      extra={<Button onClick={download}>{t('security.codes.download')}</Button>}
      texts={{
        title: t('security.codes.shownTitle'),
        label: t('security.codes.label'),
        warning: t('security.codes.warning'),
        copy: t('security.codes.copy'),
        copied: t('security.codes.copied'),
        failed: t('security.copyFailed'),
        done: t('security.codes.done'),
      }}
    />
  );
}

/** Require single sign-on (or stop), and the recovery codes that keep owners a way in. */
export function Enforcement({ sso, owner }: { sso: SsoOverview; owner: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const client = useQueryClient();
  const [codes, setCodes] = useState<Codes | null>(null);
  const [asking, setAsking] = useState(false);
  const putSso = (s: SsoOverview) =>
    client.setQueryData<SecurityOverview>(securityKeys.overview(), (o) => o && { ...o, sso: s });
  const enforce = useMutation({
    mutationFn: (enforced: boolean) => data(api.PUT('/v1/security/sso/enforcement', { body: { enforced } })),
    onSuccess: (r) => {
      putSso(r.sso);
      setAsking(false);
      if (r.recovery_codes.codes.length > 0) setCodes(r.recovery_codes);
      else toast.success(t('security.enforcement.stopped'));
    },
  });
  const regenerate = useMutation({
    mutationFn: () => data(api.POST('/v1/security/sso/recovery-codes')),
    onSuccess: (r) => {
      setCodes(r);
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
    },
  });
  // A refusal names its blockers (409 enforcement_blocked, details.blockers): listed, not just a code.
  const refused =
    isApiError(enforce.error) && Array.isArray(enforce.error.details.blockers)
      ? (enforce.error.details.blockers as Blocker[])
      : null;
  const blockers = sso.enforcement.blockers;
  return (
    <section className="card stack" aria-labelledby="sso-enforcement">
      <div className="spread">
        <h2 id="sso-enforcement">{t('security.enforcement.title')}</h2>
        <span className={`badge ${sso.enforced ? 'sec-state-verified' : ''}`}>
          {sso.enforced ? t('security.enforcement.on') : t('security.enforcement.off')}
        </span>
      </div>
      <p className="muted">{sso.enforced ? t('security.enforcement.onIntro') : t('security.enforcement.offIntro')}</p>
      {!sso.enforced && blockers.length > 0 && !refused && (
        <div className="alert alert-warning" role="note">
          <strong>{t('security.enforcement.blockedTitle')}</strong>
          <Blockers blockers={blockers} />
        </div>
      )}
      {refused && (
        <div className="alert alert-error" role="alert">
          <strong>{t('security.enforcement.refused')}</strong>
          <Blockers blockers={refused} />
        </div>
      )}
      {enforce.error && !refused && <ErrorAlert error={enforce.error} />}
      {owner && (
        <div className="row">
          {sso.enforced ? (
            <Button variant="danger" onClick={() => setAsking(true)}>
              {t('security.enforcement.disable')}
            </Button>
          ) : (
            <Button variant="primary" pending={enforce.isPending} onClick={() => enforce.mutate(true)}>
              {t('security.enforcement.enable')}
            </Button>
          )}
        </div>
      )}
      <div className="stack">
        <h3>{t('security.codes.title')}</h3>
        <p className="muted">{t('security.codes.intro')}</p>
        <p>
          {sso.recovery_codes.generated_at
            ? t('security.codes.remaining', {
                count: sso.recovery_codes.remaining,
                date: fmt.date(sso.recovery_codes.generated_at),
              })
            : t('security.codes.noneYet')}
        </p>
        {owner && sso.enforced && (
          <div>
            <ConfirmAction
              label={t('security.codes.regenerate')}
              title={t('security.codes.regenerateTitle')}
              confirm={t('security.codes.regenerateConfirm')}
              action={regenerate}
            >
              <p>{t('security.codes.regenerateBody')}</p>
            </ConfirmAction>
          </div>
        )}
      </div>
      {asking && (
        <ConfirmDialog
          title={t('security.enforcement.disableTitle')}
          confirm={t('security.enforcement.disableConfirm')}
          danger
          pending={enforce.isPending}
          error={enforce.error}
          onConfirm={() => enforce.mutate(false)}
          onClose={() => {
            setAsking(false);
            enforce.reset();
          }}
        >
          <p>{t('security.enforcement.disableBody')}</p>
        </ConfirmDialog>
      )}
      {codes && <ShowCodes codes={codes} onClose={() => setCodes(null)} />}
    </section>
  );
}

/** Frees an address of a verified domain from another organization's account (which is closed). */
export function ReleaseAddress() {
  const { t } = useTranslation();
  const [email, setEmail] = useState('');
  const [asking, setAsking] = useState(false);
  const release = useMutation({
    mutationFn: () => data(api.POST('/v1/security/sso/released-addresses', { body: { email: email.trim() } })),
    onSuccess: () => setAsking(false),
  });
  return (
    <section className="card stack" aria-labelledby="sso-release">
      <h2 id="sso-release">{t('security.release.title')}</h2>
      <p className="muted">{t('security.release.intro')}</p>
      <Form
        className="row sec-inline"
        onSubmit={() => {
          release.reset();
          setAsking(true);
        }}
      >
        <TextField
          label={t('security.release.email')}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={fieldError(release.error, 'email')}
        />
        <Button type="submit" variant="danger">
          {t('security.release.submit')}
        </Button>
      </Form>
      {!asking && <ErrorAlert error={release.error} fields={['email']} />}
      {release.data && (
        <div className="alert alert-success" role="status">
          {release.data.was_verified ? t('security.release.doneVerified') : t('security.release.doneUnverified')}
        </div>
      )}
      {asking && (
        <ConfirmDialog
          title={t('security.release.confirmTitle', { email: email.trim() })}
          confirm={t('security.release.confirm')}
          danger
          pending={release.isPending}
          error={release.error}
          onConfirm={() => release.mutate()}
          onClose={() => setAsking(false)}
        >
          <p>{t('security.release.confirmBody')}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
