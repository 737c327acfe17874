import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { securityKeys, type SecurityOverview, type SsoDomain, type SsoOverview } from '../../queries/security';
import {
  Button,
  ConfirmAction,
  CopyValue,
  ErrorAlert,
  Form,
  TextField,
  VerificationState,
  VerifyButton,
  fieldError,
  useFormat,
  useRecheck,
} from '../../ui';
import { useCopyTexts } from './copy-texts';

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
    <Form className="stack sec-subcard" onSubmit={() => claim.mutate()} aria-labelledby="sso-claim">
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
    </Form>
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
  const checkedAt = d.last_checked_at && t('security.domains.checkedAt', { date: fmt.dateTime(d.last_checked_at) });
  const waiting = owner && !verified && !!d.last_checked_at && d.last_error !== 'domain_taken';
  useRecheck(verify, waiting);
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
      <VerificationState
        verified={verified}
        verifiedAt={t('security.domains.verifiedAt', { date: fmt.dateTime(d.verified_at) })}
        failure={d.last_error && t(`security.domains.errors.${d.last_error}`)}
        checkedAt={checkedAt}
        rechecking={waiting ? t('security.domains.rechecking') : null}
      >
        {!d.last_error && !verified && checkedAt && <p className="muted">{checkedAt}</p>}
      </VerificationState>
      <ErrorAlert error={verify.error} />
      {owner && (
        <div className="row">
          <VerifyButton
            check={verify}
            verified={verified}
            verify={t('security.domains.verify')}
            recheck={t('security.domains.recheck')}
          />
          <RemoveDomain domain={d.domain} />
        </div>
      )}
    </article>
  );
}

function RemoveDomain({ domain }: { domain: string }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const remove = useMutation({
    mutationFn: () => data(api.DELETE('/v1/security/sso/domains/{domain}', { params: { path: { domain } } })),
    onSuccess: () => {
      void client.invalidateQueries({ queryKey: securityKeys.overview() });
    },
  });
  return (
    <ConfirmAction
      label={t('security.domains.remove')}
      title={t('security.domains.removeTitle', { domain })}
      confirm={t('security.domains.removeConfirm')}
      danger
      action={remove}
    >
      <p>{t('security.domains.removeBody')}</p>
    </ConfirmAction>
  );
}
