import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { securityKeys, type SecurityOverview, type SsoDomain, type SsoOverview } from '../../queries/security';
import { Button, ConfirmDialog, CopyValue, ErrorAlert, TextField, fieldError, useFormat, useRepeat } from '../../ui';
import { useCopyTexts } from './copy-texts';

const RECHECK_MS = 30_000;

/** Puts a domain's new state in the cached overview (verify answers the domain alone). */
function useDomainInCache() {
  const client = useQueryClient();
  return (d: SsoDomain) =>
    client.setQueryData<SecurityOverview>(
      securityKeys.overview(),
      (o) => o && { ...o, sso: { ...o.sso, domains: o.sso.domains.map((x) => (x.domain === d.domain ? d : x)) } },
    );
}

/** Email domains: claim one, publish its TXT record, verify it (owners). */
export function Domains({ sso, owner }: { sso: SsoOverview; owner: boolean }) {
  const { t } = useTranslation();
  return (
    <section className="card stack" aria-labelledby="sso-domains">
      <h2 id="sso-domains">{t('security.domains.title')}</h2>
      <p className="muted">{t('security.domains.intro')}</p>
      {sso.domains.length === 0 && <p className="muted">{t('security.domains.none')}</p>}
      {sso.domains.map((d) => (
        <Domain key={d.domain} domain={d} owner={owner} />
      ))}
      {owner && <Claim />}
    </section>
  );
}

function Claim() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [domain, setDomain] = useState('');
  const claim = useMutation({
    mutationFn: () => data(api.POST('/v1/security/sso/domains', { body: { domain: domain.trim() } })),
    onSuccess: () => {
      setDomain('');
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
    },
  });
  return (
    <form
      className="stack sec-subcard"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        claim.mutate();
      }}
      aria-labelledby="sso-claim"
    >
      <h3 id="sso-claim">{t('security.domains.claim')}</h3>
      <ErrorAlert error={claim.error} fields={['domain']} />
      <div className="row sec-inline">
        <TextField
          label={t('security.domains.domain')}
          hint={t('security.domains.domainHint')}
          value={domain}
          onChange={(e) => setDomain(e.target.value)}
          error={fieldError(claim.error, 'domain')}
        />
        <Button type="submit" variant="primary" pending={claim.isPending}>
          {t('security.domains.claimSubmit')}
        </Button>
      </div>
    </form>
  );
}

function Domain({ domain: d, owner }: { domain: SsoDomain; owner: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const copy = useCopyTexts();
  const inCache = useDomainInCache();
  const verify = useMutation({
    mutationFn: () =>
      data(api.POST('/v1/security/sso/domains/{domain}/verify', { params: { path: { domain: d.domain } } })),
    onSuccess: inCache,
  });
  const id = `sso-domain-${d.domain.replace(/[^a-z0-9]/g, '-')}`;
  const verified = d.status === 'verified';
  // Once checked and still pending, checked again every 30 s while the page is open (the record may be on its way).
  const waiting = owner && !verified && !!d.last_checked_at && d.last_error !== 'domain_taken';
  useRepeat(
    () => {
      if (!verify.isPending) verify.mutate();
    },
    RECHECK_MS,
    waiting,
  );
  return (
    <article className="stack sec-subcard" aria-labelledby={id}>
      <div className="spread">
        <h3 id={id}>{d.domain}</h3>
        <span className={`badge sec-state-${d.status}`}>{t(`security.domains.status.${d.status}`)}</span>
      </div>
      {!verified && <p>{t('security.domains.publish')}</p>}
      <div className="ws-fields">
        <div className="field">
          <span className="sec-label">{t('security.domains.txtName')}</span>
          <CopyValue
            value={d.txt.name}
            label={t('security.domains.txtName')}
            texts={copy}
            action={t('security.copyThe', { what: t('security.domains.txtName') })}
          />
        </div>
        <div className="field">
          <span className="sec-label">{t('security.domains.txtValue')}</span>
          <CopyValue
            value={d.txt.value}
            label={t('security.domains.txtValue')}
            texts={copy}
            action={t('security.copyThe', { what: t('security.domains.txtValue') })}
          />
        </div>
      </div>
      {/* The verification state is announced when a check changes it. */}
      <div aria-live="polite" className="stack">
        {verified && (
          <div className="alert alert-success" role="status">
            {t('security.domains.verifiedAt', { date: fmt.dateTime(d.verified_at) })}
          </div>
        )}
        {d.last_error && (
          <div className={`alert ${verified ? 'alert-warning' : 'alert-error'}`} role="status">
            <strong>{t(`security.domains.errors.${d.last_error}`)}</strong>
            {d.last_checked_at && (
              <div className="muted">{t('security.domains.checkedAt', { date: fmt.dateTime(d.last_checked_at) })}</div>
            )}
          </div>
        )}
        {!d.last_error && !verified && d.last_checked_at && (
          <p className="muted">{t('security.domains.checkedAt', { date: fmt.dateTime(d.last_checked_at) })}</p>
        )}
        {waiting && <p className="muted">{t('security.domains.rechecking')}</p>}
      </div>
      <ErrorAlert error={verify.error} />
      {owner && (
        <div className="row">
          <Button
            variant={verified ? 'secondary' : 'primary'}
            pending={verify.isPending}
            onClick={() => verify.mutate()}
          >
            {verified ? t('security.domains.recheck') : t('security.domains.verify')}
          </Button>
          <RemoveDomain domain={d.domain} />
        </div>
      )}
    </article>
  );
}

function RemoveDomain({ domain }: { domain: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/security/sso/domains/{domain}', { params: { path: { domain } } })),
    onSuccess: () => {
      setAsking(false);
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
    },
  });
  return (
    <>
      <Button variant="danger" onClick={() => setAsking(true)}>
        {t('security.domains.remove')}
      </Button>
      {asking && (
        <ConfirmDialog
          title={t('security.domains.removeTitle', { domain })}
          confirm={t('security.domains.removeConfirm')}
          danger
          pending={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate()}
          onClose={() => {
            setAsking(false);
            remove.reset();
          }}
        >
          <p>{t('security.domains.removeBody')}</p>
        </ConfirmDialog>
      )}
    </>
  );
}
