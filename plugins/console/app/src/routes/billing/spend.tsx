import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { billingKeys, goToProvider, type Billing } from '../../queries/billing';
import { Button, CheckboxField, Form, FormActions, TextField, fieldError, useFormat, useToast } from '../../ui';
import { ReasonAlert } from './reason';

type Pack = Billing['topup_packs'][number]['id'];

function useSaveBilling() {
  const client = useQueryClient();
  return (next: Billing) => {
    client.setQueryData(billingKeys.summary(), next);
    void client.invalidateQueries({ queryKey: billingKeys.credits() });
  };
}

/** The monthly spend cap (with the alert threshold it arms) and paid fixes beyond every credit. */
export function Spend({ billing, manage }: { billing: Billing; manage: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const save = useSaveBilling();
  const spend = billing.summary.spend;
  const fixes = billing.summary.fixes;
  const [cap, setCap] = useState(spend.cap_usd == null ? '' : String(spend.cap_usd));
  const setSpendCap = useMutation({
    mutationFn: (cap_usd: number | null) => data(api.PUT('/v1/billing/spend-cap', { body: { cap_usd } })),
    onSuccess: (next) => {
      save(next);
      toast.success(t('billing.spend.saved'));
    },
  });
  const overage = useMutation({
    mutationFn: (enabled: boolean) => data(api.PUT('/v1/billing/overage', { body: { enabled } })),
    onSuccess: save,
  });
  const submit = () => {
    // An empty field removes the cap (the API's cap_usd: null).
    setSpendCap.mutate(cap.trim() === '' ? null : Number(cap));
  };
  const alertAt = spend.cap_usd == null ? null : spend.cap_usd * spend.alert_ratio;
  return (
    <section className="card stack" aria-labelledby="billing-spend">
      <h2 id="billing-spend">{t('billing.spend.title')}</h2>
      <p>{t('billing.spend.spent', { spent: fmt.usd(spend.spent_this_period_usd) })}</p>
      {spend.blocked && (
        <div className="alert alert-error" role="status">
          {t('billing.spend.blocked')}
        </div>
      )}
      {!spend.blocked && spend.alert_sent && (
        <div className="alert alert-warning" role="status">
          {t('billing.spend.alertSent')}
        </div>
      )}
      <p>
        {spend.cap_usd == null
          ? t('billing.spend.noCap')
          : t('billing.spend.cap', {
              cap: fmt.usd(spend.cap_usd),
              percent: fmt.number(spend.alert_ratio, { style: 'percent' }),
              alert: fmt.usd(alertAt),
            })}
      </p>
      {manage && (
        <Form className="stack" onSubmit={submit}>
          <TextField
            label={t('billing.spend.capLabel')}
            hint={t('billing.spend.capHint', { percent: fmt.number(spend.alert_ratio, { style: 'percent' }) })}
            inputMode="decimal"
            value={cap}
            onChange={(e) => setCap(e.target.value)}
            error={fieldError(setSpendCap.error, 'cap_usd')}
          />
          <ReasonAlert error={setSpendCap.error} fields={['cap_usd']} />
          <FormActions submit={t('billing.spend.saveCap')} pending={setSpendCap.isPending} />
        </Form>
      )}
      <h3>{t('billing.overage.title')}</h3>
      <p>
        {fixes.overage_price_usd > 0
          ? t('billing.overage.body', { price: fmt.usd(fixes.overage_price_usd) })
          : t('billing.overage.notOnPlan')}
      </p>
      {manage && fixes.overage_price_usd > 0 && (
        <CheckboxField
          label={t('billing.overage.enable')}
          checked={fixes.overage_enabled}
          disabled={overage.isPending}
          onChange={(e) => overage.mutate(e.target.checked)}
        />
      )}
      {!manage && <p>{fixes.overage_enabled ? t('billing.overage.on') : t('billing.overage.off')}</p>}
      <ReasonAlert error={overage.error} />
    </section>
  );
}

/** One-time packs of fixes (a hosted checkout) and the badge removal add-on. */
export function Extras({ billing, manage }: { billing: Billing; manage: boolean }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const save = useSaveBilling();
  const usd = (v: number | null) => (v == null ? t('billing.plans.noPrice') : fmt.usd(v));
  const topup = useMutation({
    mutationFn: (pack: Pack) => data(api.POST('/v1/billing/topups', { body: { pack } })),
    onSuccess: ({ url }) => goToProvider(url),
  });
  const badge = useMutation({
    mutationFn: (enabled: boolean) => data(api.PUT('/v1/billing/addons/badge-removal', { body: { enabled } })),
    onSuccess: save,
  });
  const addon = billing.addons.badge_removal;
  return (
    <section className="card stack" aria-labelledby="billing-extras">
      <h2 id="billing-extras">{t('billing.topups.title')}</h2>
      {!billing.topups_available && <p className="muted">{t('billing.topups.notAvailable')}</p>}
      <ul className="billing-packs">
        {billing.topup_packs.map((p) => (
          <li key={p.id} className="card stack">
            <strong>{t('billing.topups.fixes', { count: p.fixes })}</strong>
            <span>{usd(p.price_usd)}</span>
            {manage && (
              <Button
                aria-label={t('billing.topups.buyLabel', { count: p.fixes })}
                disabled={!billing.topups_available || p.price_usd == null}
                pending={topup.isPending && topup.variables === p.id}
                onClick={() => topup.mutate(p.id)}
              >
                {t('billing.topups.buy')}
              </Button>
            )}
          </li>
        ))}
      </ul>
      <ReasonAlert error={topup.error} />
      <h3>{t('billing.addons.title')}</h3>
      <p>{t('billing.addons.badge', { price: usd(addon.price_usd) })}</p>
      {addon.available || addon.active ? (
        manage ? (
          <CheckboxField
            label={t('billing.addons.badgeEnable')}
            checked={addon.active}
            disabled={badge.isPending}
            onChange={(e) => badge.mutate(e.target.checked)}
          />
        ) : (
          <p>{addon.active ? t('billing.addons.on') : t('billing.addons.off')}</p>
        )
      ) : (
        <p className="muted">{t('billing.addons.notOnPlan')}</p>
      )}
      <ReasonAlert error={badge.error} />
    </section>
  );
}
