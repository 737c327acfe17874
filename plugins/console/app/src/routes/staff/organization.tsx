import { Fragment, useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { RequestBody, Schema } from '../../api/types';
import { GRANTABLE_PLANS, staffKeys, staffOrganizationQuery } from '../../queries/staff';
import {
  Button,
  ConfirmDialog,
  ErrorAlert,
  ErrorState,
  LoadingState,
  SelectField,
  TextField,
  fieldError,
  useFormat,
  useToast,
} from '../../ui';
import { RequireStaff } from './require-staff';
import '../workspaces/workspaces.css';

type Detail = Schema<'StaffOrganizationDetail'>;
type Grant = RequestBody<'/v1/staff/organizations/{id}/plan', 'put'>;

/** /staff/organizations/:id: one organization's plan, credits by source, and a plan granted by hand. */
export default function StaffOrganization() {
  return (
    <RequireStaff>
      <OrganizationPage />
    </RequireStaff>
  );
}

function OrganizationPage() {
  const { t } = useTranslation();
  const { id = '' } = useParams();
  const org = useQuery(staffOrganizationQuery(id));
  if (org.isPending) return <LoadingState />;
  if (org.isError) return <ErrorState error={org.error} retry={() => void org.refetch()} />;
  return (
    <div className="stack">
      <Link to="/staff/organizations">{t('staff.organization.back')}</Link>
      <h1>{org.data.name}</h1>
      <Summary org={org.data} />
      <GrantPlan org={org.data} />
    </div>
  );
}

function Summary({ org }: { org: Detail }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const rows: [string, string][] = [
    [t('staff.columns.plan'), t(`staff.plans.${org.plan}`)],
    [t('staff.organization.status'), t(`staff.statuses.${org.subscription_status}`)],
    [t('staff.organization.slug'), org.slug],
    [t('staff.organization.id'), org.id],
    [t('staff.organization.billingEmail'), org.billing_email ?? '—'],
    [t('staff.columns.members'), fmt.number(org.members)],
    [t('staff.organization.workspaces'), fmt.number(org.workspaces)],
    [t('staff.columns.created'), fmt.date(org.created_at)],
  ];
  if (org.trial_ends_at) rows.push([t('staff.organization.trialEnds'), fmt.date(org.trial_ends_at)]);
  if (org.current_period_end) rows.push([t('staff.organization.periodEnds'), fmt.date(org.current_period_end)]);
  return (
    <div className="ws-fields">
      <section className="card stack" aria-labelledby="staff-summary">
        <h2 id="staff-summary">{t('staff.organization.summary')}</h2>
        <dl className="ws-facts">
          {rows.map(([k, v]) => (
            <Fragment key={k}>
              <dt>{k}</dt>
              <dd>{v}</dd>
            </Fragment>
          ))}
        </dl>
      </section>
      <section className="card stack" aria-labelledby="staff-credits">
        <h2 id="staff-credits">
          {t('staff.organization.credits', { count: org.credits_remaining, n: fmt.number(org.credits_remaining) })}
        </h2>
        {org.credits_by_source.length === 0 ? (
          <p className="muted">{t('staff.organization.noCredits')}</p>
        ) : (
          <table>
            <caption className="visually-hidden">{t('staff.organization.creditsBySource')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('staff.organization.source')}</th>
                <th scope="col">{t('staff.organization.fixes')}</th>
                <th scope="col">{t('staff.organization.nextExpiry')}</th>
              </tr>
            </thead>
            <tbody>
              {org.credits_by_source.map((c) => (
                <tr key={c.source}>
                  <th scope="row">{t(`staff.sources.${c.source}`)}</th>
                  <td>{fmt.number(c.fixes_remaining)}</td>
                  <td>{fmt.date(c.next_expiry_at) || '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  );
}

/** A plan without a payment (enterprise is sold by no checkout): confirmed, with the reason the audit log keeps. */
function GrantPlan({ org }: { org: Detail }) {
  const { t } = useTranslation();
  const toast = useToast();
  const client = useQueryClient();
  const [plan, setPlan] = useState<Grant['plan']>(org.plan === 'enterprise' ? 'none' : 'enterprise');
  const [reason, setReason] = useState('');
  const [asking, setAsking] = useState(false);
  const grant = useMutation({
    mutationFn: (body: Grant) =>
      data(api.PUT('/v1/staff/organizations/{id}/plan', { params: { path: { id: org.id } }, body })),
    onSuccess: (detail) => {
      client.setQueryData(staffKeys.organization(org.id), detail);
      void client.invalidateQueries({ queryKey: [...staffKeys.all, 'organizations'] });
      toast.success(t('staff.grant.done', { name: org.name, plan: t(`staff.plans.${detail.plan}`) }));
      setAsking(false);
      setReason('');
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    grant.reset();
    setAsking(true);
  };
  return (
    <form className="card stack" onSubmit={submit} aria-labelledby="staff-grant">
      <h2 id="staff-grant">{t('staff.grant.title')}</h2>
      <p className="muted">{t('staff.grant.intro')}</p>
      <div className="ws-fields">
        <SelectField
          label={t('staff.grant.plan')}
          value={plan}
          onChange={(e) => setPlan(e.target.value as Grant['plan'])}
        >
          {GRANTABLE_PLANS.map((p) => (
            <option key={p} value={p}>
              {t(`staff.plans.${p}`)}
            </option>
          ))}
        </SelectField>
        <TextField
          label={t('staff.grant.reason')}
          hint={t('staff.grant.reasonHint')}
          value={reason}
          required
          minLength={3}
          maxLength={500}
          onChange={(e) => setReason(e.target.value)}
          error={fieldError(grant.error, 'reason')}
        />
      </div>
      {!asking && <ErrorAlert error={grant.error} fields={['reason', 'plan']} />}
      <div className="row">
        <Button type="submit" variant="primary" disabled={plan === org.plan}>
          {t('staff.grant.submit')}
        </Button>
        {plan === org.plan && <span className="muted">{t('staff.grant.already')}</span>}
      </div>
      {asking && (
        <ConfirmDialog
          title={t('staff.grant.confirmTitle', { name: org.name, plan: t(`staff.plans.${plan}`) })}
          confirm={t('staff.grant.confirm')}
          pending={grant.isPending}
          error={grant.error}
          onConfirm={() => grant.mutate({ plan, reason: reason.trim() })}
          onClose={() => setAsking(false)}
        >
          <p>{t('staff.grant.confirmBody', { from: t(`staff.plans.${org.plan}`), to: t(`staff.plans.${plan}`) })}</p>
        </ConfirmDialog>
      )}
    </form>
  );
}
