import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { brandKeys, useProfileInCache, type BrandProfile } from '../../queries/brand';
import {
  Button,
  ConfirmAction,
  CopyValue,
  ErrorAlert,
  Form,
  TextField,
  fieldError,
  useFormat,
  VerificationState,
  VerifyButton,
  useRecheck,
  type CopyTexts,
} from '../../ui';

type State = NonNullable<BrandProfile['status_domain_state']>;

/** Status pages on the brand's own host: the records to publish (copy buttons), verification, removal. */
export function StatusDomain({ profile }: { profile: BrandProfile }) {
  const { t } = useTranslation();
  const state = profile.status_domain_state;
  return (
    <section className="card stack" aria-labelledby="brand-status">
      <h2 id="brand-status">{t('brand.status.title')}</h2>
      <p className="muted">{t('brand.status.intro')}</p>
      {state ? <Records profile={profile} state={state} /> : <SetDomain profile={profile} />}
    </section>
  );
}

function SetDomain({ profile }: { profile: BrandProfile }) {
  const { t } = useTranslation();
  const inCache = useProfileInCache();
  const [domain, setDomain] = useState('');
  const set = useMutation({
    mutationFn: () =>
      data(
        api.PUT('/v1/brand/profiles/{id}/status-domain', {
          params: { path: { id: profile.id } },
          body: { domain: domain.trim() },
        }),
      ),
    onSuccess: inCache,
  });
  return (
    <Form className="stack" onSubmit={() => set.mutate()}>
      <ErrorAlert error={set.error} fields={['domain']} />
      <div className="row brand-inline">
        <TextField
          label={t('brand.status.domain')}
          hint={t('brand.status.domainHint')}
          value={domain}
          onChange={(e) => setDomain(e.target.value)}
          error={fieldError(set.error, 'domain')}
        />
        <Button type="submit" variant="primary" pending={set.isPending}>
          {t('brand.status.set')}
        </Button>
      </div>
    </Form>
  );
}

function Records({ profile, state }: { profile: BrandProfile; state: State }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const inCache = useProfileInCache();
  const client = useQueryClient();
  const copy: CopyTexts = { button: t('brand.copy'), copied: t('brand.copied'), failed: t('brand.copyFailed') };
  const verify = useMutation({
    mutationFn: () =>
      data(api.POST('/v1/brand/profiles/{id}/status-domain/verify', { params: { path: { id: profile.id } } })),
    // The document marks `profile` optional (the schema's quirk); without it the profile is read again.
    onSuccess: (r) =>
      r.profile ? inCache(r.profile) : void client.invalidateQueries({ queryKey: brandKeys.profile(profile.id) }),
  });
  const remove = useMutation({
    mutationFn: () =>
      data(api.DELETE('/v1/brand/profiles/{id}/status-domain', { params: { path: { id: profile.id } } })),
    onSuccess: (p) => {
      inCache(p);
    },
  });
  const waiting = !state.verified && !!state.last_checked_at && state.last_error !== 'domain_taken';
  useRecheck(verify, waiting);
  const records = [
    ['cname', state.cname, state.cname_ok],
    ['txt', state.txt, state.txt_ok],
  ] as const;
  return (
    <div className="stack">
      <div className="spread">
        <strong>{state.domain}</strong>
        <span className="badge">{state.verified ? t('brand.status.verified') : t('brand.status.pending')}</span>
      </div>
      {!state.verified && <p>{t('brand.status.publish')}</p>}
      <div className="table-wrap">
        <table className="brand-records">
          <caption className="visually-hidden">{t('brand.status.records')}</caption>
          <thead>
            <tr>
              {(['type', 'name', 'value', 'found'] as const).map((c) => (
                <th key={c} scope="col">
                  {t(`brand.status.${c}`)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {records.map(([k, r, ok]) => (
              <tr key={k}>
                <td>{r.type}</td>
                <td>
                  <CopyValue
                    value={r.name}
                    label={t('brand.status.nameOf', { type: r.type })}
                    texts={copy}
                    action={t('brand.status.copyName', { type: r.type })}
                  />
                </td>
                <td>
                  <CopyValue
                    value={r.value}
                    label={t('brand.status.valueOf', { type: r.type })}
                    texts={copy}
                    action={t('brand.status.copyValue', { type: r.type })}
                  />
                </td>
                <td>{state.last_checked_at ? (ok ? t('brand.status.ok') : t('brand.status.notYet')) : '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <VerificationState
        verified={state.verified}
        verifiedAt={t('brand.status.verifiedAt', { date: fmt.dateTime(state.verified_at) })}
        failure={state.last_error && t(`brand.status.errors.${state.last_error}`)}
        checkedAt={state.last_checked_at && t('brand.status.checkedAt', { date: fmt.dateTime(state.last_checked_at) })}
        failureDetail={
          state.verified &&
          state.failing_since && (
            <div>{t('brand.status.failingSince', { date: fmt.dateTime(state.failing_since) })}</div>
          )
        }
        rechecking={waiting ? t('brand.status.rechecking') : null}
      />
      <ErrorAlert error={verify.error} />
      <div className="row">
        <VerifyButton
          check={verify}
          verified={state.verified}
          verify={t('brand.status.verify')}
          recheck={t('brand.status.recheck')}
        />
        <ConfirmAction
          label={t('brand.status.remove')}
          title={t('brand.status.removeTitle', { domain: state.domain })}
          confirm={t('brand.status.removeConfirm')}
          danger
          action={remove}
        >
          <p>{t('brand.status.removeBody')}</p>
        </ConfirmAction>
      </div>
    </div>
  );
}
