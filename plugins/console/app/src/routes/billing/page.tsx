import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { billingKeys, billingQuery } from '../../queries/billing';
import { authKeys, useMe } from '../../queries/session';
import { QueryView } from '../../ui';
import { Claims, Referrals } from './claims';
import { Credits } from './credits';
import { Invoices } from './invoices';
import { Plans } from './plans';
import { Extras, Spend } from './spend';
import '../workspaces/workspaces.css';
import './billing.css';

/** What a hosted page of the provider reports on the way back (`?checkout=success` and the like). */
const RETURNS = ['checkout', 'topup', 'portal', 'connect'] as const;

/**
 * /billing: the plan and its offers, credits and their ledger, the spend cap, top-ups and add-ons,
 * invoices, claims and referrals. Owners and admins change things; reviewers read.
 */
export default function BillingPage() {
  const { t } = useTranslation();
  const me = useMe().data!;
  const client = useQueryClient();
  const billing = useQuery(billingQuery());
  const [params, setParams] = useSearchParams();
  const [back] = useState(() => {
    const from = RETURNS.find((k) => params.get(k));
    return from ? { from, outcome: params.get(from)! } : null;
  });
  useEffect(() => {
    if (!back) return;
    // The provider has told the service already (payment-local before redirecting, Stripe soon after): read again.
    void client.invalidateQueries({ queryKey: billingKeys.all });
    void client.invalidateQueries({ queryKey: authKeys.all });
    setParams({}, { replace: true });
  }, [back, client, setParams]);
  const manage = me.user.role === 'owner' || me.user.role === 'admin';
  return (
    <div className="stack">
      <h1>{t('billing.title')}</h1>
      {back && (
        <div
          className={`alert ${back.outcome === 'canceled' || back.outcome === 'refresh' ? 'alert-info' : 'alert-success'}`}
          role="status"
        >
          {t(
            `billing.back.${back.from}_${back.outcome === 'canceled' || back.outcome === 'refresh' ? 'canceled' : 'done'}`,
          )}
          {back.from === 'connect' && me.organization.type === 'agency' && (
            <>
              {' '}
              <Link to="/agency/resale">{t('billing.back.toResale')}</Link>
            </>
          )}
        </div>
      )}
      <QueryView query={billing}>
        {(b) => (
          <>
            <Plans billing={b} manage={manage} />
            <Credits billing={b} />
            <Spend billing={b} manage={manage} />
            <Extras billing={b} manage={manage} />
            {manage && <Invoices />}
            <Claims manage={manage} />
            {manage && <Referrals />}
          </>
        )}
      </QueryView>
    </div>
  );
}
