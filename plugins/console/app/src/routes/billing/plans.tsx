import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { authKeys } from '../../queries/session';
import { billingKeys, goToProvider, isPaidPlan, type Billing, type PaidPlan } from '../../queries/billing';
import { Button, ConfirmDialog, useFormat } from '../../ui';
import { ReasonAlert } from './reason';
import { ScrollTable } from './table';

type Plan = Billing['plans'][number];

/** The plan now (status, trial days left, period), and every plan with what a switch or checkout changes. */
export function Plans({ billing, manage }: { billing: Billing; manage: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const client = useQueryClient();
  const [chosen, setChosen] = useState<Plan | null>(null);
  const [cancelling, setCancelling] = useState(false);
  const s = billing.summary;
  const current = billing.plans.find((p) => p.current) ?? null;
  const usd = (v: number | null) => (v == null ? t('billing.plans.noPrice') : fmt.usd(v));
  const refresh = (next?: Billing) => {
    if (next) client.setQueryData(billingKeys.summary(), next);
    void client.invalidateQueries({ queryKey: billingKeys.all });
    void client.invalidateQueries({ queryKey: authKeys.all });
  };

  const checkout = useMutation({
    mutationFn: (plan: PaidPlan) => data(api.POST('/v1/billing/checkout', { body: { plan } })),
    onSuccess: ({ url }) => goToProvider(url),
  });
  const switchPlan = useMutation({
    mutationFn: (plan: PaidPlan) => data(api.POST('/v1/billing/plan', { body: { plan } })),
    onSuccess: (next) => {
      refresh(next);
      setChosen(null);
    },
  });
  const openSource = useMutation({ mutationFn: () => data(api.POST('/v1/billing/open-source')), onSuccess: refresh });
  const cancel = useMutation({
    mutationFn: () => data(api.POST('/v1/billing/cancel')),
    onSuccess: (next) => {
      refresh(next);
      setCancelling(false);
    },
  });
  const portal = useMutation({
    mutationFn: () => data(api.POST('/v1/billing/portal')),
    onSuccess: ({ url }) => goToProvider(url),
  });
  const action = billing.has_subscription ? switchPlan : checkout;
  const openSourceOffer = billing.plans.find((p) => p.id === 'open_source' && p.available);
  // What a plan's button does: switch the running subscription, or a checkout with or without the trial.
  const offer = billing.has_subscription ? 'switch' : billing.trial_available ? 'startTrial' : 'subscribe';

  return (
    <section className="card stack" aria-labelledby="billing-plan">
      <h2 id="billing-plan">{t('billing.plan.title')}</h2>
      <dl className="ws-facts">
        <dt>{t('billing.plan.current')}</dt>
        <dd>
          <strong>{current?.name ?? t('billing.plan.none')}</strong>
        </dd>
        <dt>{t('billing.plan.status')}</dt>
        <dd>{t(`billing.statuses.${billing.subscription_status}`)}</dd>
        {billing.subscription_status === 'trialing' && (
          <>
            <dt>{t('billing.plan.trial')}</dt>
            <dd>
              {t('billing.plan.trialLeft', {
                count: billing.trial.days_left,
                date: fmt.date(billing.trial.ends_at),
                fixes: billing.trial.fixes,
              })}
            </dd>
          </>
        )}
        {s.current_period_end && (
          <>
            <dt>{s.cancel_at_period_end ? t('billing.plan.endsOn') : t('billing.plan.renewsOn')}</dt>
            <dd>{fmt.date(s.current_period_end)}</dd>
          </>
        )}
        <dt>{t('billing.plan.workspaces')}</dt>
        <dd>
          {t('billing.plan.workspacesUsed', {
            used: s.workspaces.used,
            included: s.workspaces.included,
            extra: s.workspaces.extra,
          })}
        </dd>
        <dt>{t('billing.plan.tickets')}</dt>
        <dd>
          {t('billing.plan.ticketsUsed', {
            used: fmt.number(s.tickets.used_this_period),
            limit: fmt.number(s.tickets.limit_per_workspace),
          })}
        </dd>
        <dt>{t('billing.plan.fixes')}</dt>
        <dd>
          {t('billing.plan.fixesUsed', {
            used: s.fixes.used_this_period,
            included: s.fixes.included_per_month,
            credits: s.fixes.credits_remaining,
          })}
        </dd>
      </dl>
      {billing.past_due && (
        <div className="alert alert-warning" role="status">
          {t('billing.plan.pastDue')}
        </div>
      )}
      {s.cancel_at_period_end && (
        <div className="alert alert-info" role="status">
          {t('billing.plan.cancelling', { date: fmt.date(s.current_period_end) })}
        </div>
      )}
      {!billing.payments_enabled && (
        <div className="alert alert-info" role="status">
          {t('billing.plan.paymentsDisabled')}
        </div>
      )}
      {manage && (
        <div className="row">
          {billing.has_subscription && billing.payments_enabled && (
            <Button pending={portal.isPending} onClick={() => portal.mutate()}>
              {t('billing.plan.portal')}
            </Button>
          )}
          {billing.has_subscription && !s.cancel_at_period_end && (
            <Button variant="danger" onClick={() => setCancelling(true)}>
              {t('billing.plan.cancel')}
            </Button>
          )}
          {openSourceOffer && (
            <Button pending={openSource.isPending} onClick={() => openSource.mutate()}>
              {t('billing.plan.openSource')}
            </Button>
          )}
        </div>
      )}
      <ReasonAlert error={portal.error ?? openSource.error ?? checkout.error} />

      <ScrollTable caption={t('billing.plans.caption')}>
        <thead>
          <tr>
            <th scope="col">{t('billing.plans.plan')}</th>
            <th scope="col">{t('billing.plans.price')}</th>
            <th scope="col">{t('billing.plans.fixes')}</th>
            <th scope="col">{t('billing.plans.tickets')}</th>
            <th scope="col">{t('billing.plans.workspaces')}</th>
            <th scope="col">{t('billing.plans.overage')}</th>
            <th scope="col">
              <span className="visually-hidden">{t('billing.plans.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {billing.plans.map((p) => (
            <tr key={p.id} aria-current={p.current ? 'true' : undefined}>
              <th scope="row">
                {p.name} {p.current && <span className="badge">{t('billing.plans.currentBadge')}</span>}
              </th>
              <td>{p.id === 'open_source' ? t('billing.plans.free') : usd(p.price_monthly_usd)}</td>
              <td>{fmt.number(p.included_fixes_per_month)}</td>
              <td>{fmt.number(p.tickets_per_month)}</td>
              <td>{fmt.number(p.workspaces_included)}</td>
              <td>{p.overage_fix_price_usd > 0 ? usd(p.overage_fix_price_usd) : '–'}</td>
              <td>
                {manage && p.available && isPaidPlan(p.id) && (
                  <Button aria-label={t(`billing.plans.${offer}To`, { plan: p.name })} onClick={() => setChosen(p)}>
                    {t(`billing.plans.${offer}`)}
                  </Button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </ScrollTable>

      {chosen && isPaidPlan(chosen.id) && (
        <ConfirmDialog
          title={t(billing.has_subscription ? 'billing.change.switchTitle' : 'billing.change.checkoutTitle', {
            plan: chosen.name,
          })}
          confirm={billing.has_subscription ? t('billing.change.switch') : t('billing.change.checkout')}
          pending={action.isPending}
          error={null}
          onConfirm={() => action.mutate(chosen.id as PaidPlan)}
          onClose={() => {
            setChosen(null);
            action.reset();
          }}
        >
          <Changes from={current} to={chosen} usd={usd} />
          {billing.has_subscription ? (
            <p>{t('billing.change.prorated')}</p>
          ) : billing.trial_available ? (
            <p>{t('billing.change.trial', { count: chosen.trial_days, fixes: chosen.trial_fixes })}</p>
          ) : (
            <p>{t('billing.change.noTrial')}</p>
          )}
          {!billing.has_subscription && <p className="muted">{t('billing.change.provider')}</p>}
          <ReasonAlert error={action.error} />
        </ConfirmDialog>
      )}
      {cancelling && (
        <ConfirmDialog
          title={t('billing.cancel.title')}
          confirm={t('billing.cancel.confirm')}
          danger
          pending={cancel.isPending}
          error={cancel.error}
          onConfirm={() => cancel.mutate()}
          onClose={() => setCancelling(false)}
        >
          <p>{t('billing.cancel.body', { date: fmt.date(s.current_period_end) })}</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** What a new plan changes, side by side with the current one. */
function Changes({ from, to, usd }: { from: Plan | null; to: Plan; usd: (v: number | null) => string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const rows: [string, string, string][] = [
    [t('billing.plans.price'), from ? usd(from.price_monthly_usd) : '–', usd(to.price_monthly_usd)],
    [
      t('billing.plans.fixes'),
      fmt.number(from?.included_fixes_per_month ?? 0),
      fmt.number(to.included_fixes_per_month),
    ],
    [t('billing.plans.tickets'), fmt.number(from?.tickets_per_month ?? 0), fmt.number(to.tickets_per_month)],
    [t('billing.plans.workspaces'), fmt.number(from?.workspaces_included ?? 0), fmt.number(to.workspaces_included)],
    [
      t('billing.plans.repositories'),
      fmt.number(from?.repositories_per_workspace ?? 0),
      fmt.number(to.repositories_per_workspace),
    ],
  ];
  return (
    <table>
      <caption>{t('billing.change.caption')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('billing.change.what')}</th>
          <th scope="col">{t('billing.change.now')}</th>
          <th scope="col">{t('billing.change.after')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([what, now, after]) => (
          <tr key={what}>
            <th scope="row">{what}</th>
            <td>{now}</td>
            <td>{after}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
