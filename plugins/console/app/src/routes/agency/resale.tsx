import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { agencyKeys, agencyResaleQuery } from '../../queries/agency';
import { billingKeys, billingQuery, goToProvider, type Billing } from '../../queries/billing';
import { useMe } from '../../queries/session';
import { Button, CheckboxField, Form, FormDialog, QueryView, TextField, fieldError, useFormat } from '../../ui';
import { ReasonAlert } from '../billing/reason';
import { AgencyError, AgencyNav } from './nav';
import '../workspaces/workspaces.css';
import '../billing/billing.css';
import { ScrollTable, lastDayOf } from '../billing/table';

type AgencyBilling = NonNullable<Billing['agency']>;
type ClientWorkspace = AgencyBilling['workspaces'][number];

/**
 * /agency/resale: the payout account (onboarding through the provider's page), and per client the
 * resale price, what serving it cost this month and the margin, the managed add-on.
 */
export default function AgencyResale() {
  const { t } = useTranslation();
  const billing = useQuery(billingQuery());
  const resale = useQuery(agencyResaleQuery());
  const agency = billing.data?.agency;
  return (
    <div className="stack">
      <h1>{t('agency.resale.title')}</h1>
      <AgencyNav />
      <QueryView query={billing} failed={AgencyError}>
        {(b) =>
          b.agency ? (
            <Payouts agency={b.agency} />
          ) : (
            <div className="alert alert-info" role="status">
              {t('agency.resale.noAgencyPlan')}
            </div>
          )
        }
      </QueryView>
      <section className="card stack" aria-labelledby="resale-clients">
        <h2 id="resale-clients">{t('agency.resale.clients')}</h2>
        <QueryView query={resale} failed={AgencyError}>
          {(r) => <ResaleTable resale={r} agency={agency ?? null} />}
        </QueryView>
      </section>
    </div>
  );
}

function Payouts({ agency }: { agency: AgencyBilling }) {
  const { t } = useTranslation();
  const me = useMe().data!;
  const [country, setCountry] = useState('IT');
  const onboarding = useMutation({
    mutationFn: () => data(api.POST('/v1/billing/connect/onboarding', { body: { country } })),
    onSuccess: ({ url }) => goToProvider(url),
  });
  const c = agency.connect;
  const state = !c.account_id
    ? 'none'
    : c.charges_enabled && c.payouts_enabled
      ? 'ready'
      : c.details_submitted
        ? 'review'
        : 'incomplete';
  return (
    <section className="card stack" aria-labelledby="resale-payouts">
      <h2 id="resale-payouts">{t('agency.payouts.title')}</h2>
      <p>
        <strong>{t(`agency.payouts.states.${state}`)}</strong>
      </p>
      <p className="muted">{t('agency.payouts.fee', { percent: agency.platform_fee_percent })}</p>
      {me.user.role === 'owner' ? (
        <Form className="row" onSubmit={() => onboarding.mutate()}>
          <TextField
            label={t('agency.payouts.country')}
            hint={t('agency.payouts.countryHint')}
            value={country}
            maxLength={2}
            onChange={(e) => setCountry(e.target.value.toUpperCase())}
            error={fieldError(onboarding.error, 'country')}
          />
          <Button type="submit" pending={onboarding.isPending}>
            {state === 'none' ? t('agency.payouts.start') : t('agency.payouts.continue')}
          </Button>
        </Form>
      ) : (
        <p className="muted">{t('agency.payouts.ownersOnly')}</p>
      )}
      <ReasonAlert error={onboarding.error} fields={['country']} />
    </section>
  );
}

function ResaleTable({ resale, agency }: { resale: Schema<'AgencyResale'>; agency: AgencyBilling | null }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const qc = useQueryClient();
  const [editing, setEditing] = useState<ClientWorkspace | null>(null);
  const usd = (v: number | null) => (v == null ? '–' : fmt.usd(v));
  const managed = useMutation({
    mutationFn: ({ id, enabled }: { id: string; enabled: boolean }) =>
      data(api.PUT('/v1/billing/workspaces/{id}/managed', { params: { path: { id } }, body: { enabled } })),
    onSuccess: (next) => {
      qc.setQueryData(billingKeys.summary(), next);
      void qc.invalidateQueries({ queryKey: agencyKeys.all });
    },
  });
  const ws = (id: string) => agency?.workspaces.find((w) => w.id === id) ?? null;
  return (
    <div className="stack">
      <p>
        {t('agency.resale.period', {
          start: fmt.date(resale.period.start),
          end: fmt.date(lastDayOf(resale.period.end)),
        })}
      </p>
      <ScrollTable caption={t('agency.resale.clients')}>
        <thead>
          <tr>
            <th scope="col">{t('agency.resale.client')}</th>
            <th scope="col">{t('agency.resale.price')}</th>
            <th scope="col">{t('agency.resale.cost')}</th>
            <th scope="col">{t('agency.resale.margin')}</th>
            <th scope="col">{t('agency.resale.collection')}</th>
            <th scope="col">{t('agency.resale.managed')}</th>
            <th scope="col">
              <span className="visually-hidden">{t('agency.resale.actions')}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {resale.items.map((i) => {
            const w = ws(i.workspace_id);
            return (
              <tr key={i.workspace_id}>
                <th scope="row">{i.client_name}</th>
                <td>{usd(i.resale_price_usd)}</td>
                <td>{usd(i.cost_usd)}</td>
                <td>
                  {i.margin_usd == null
                    ? '–'
                    : `${usd(i.margin_usd)} (${fmt.number(i.margin_rate ?? 0, { style: 'percent' })})`}
                </td>
                <td>
                  {w?.collection
                    ? t(`agency.resale.statuses.${w.collection.status}`)
                    : i.collect_via_connect
                      ? t('agency.resale.statuses.pending')
                      : t('agency.resale.notCollected')}
                </td>
                <td>
                  {w ? (
                    <CheckboxField
                      label={
                        <span className="visually-hidden">
                          {t('agency.resale.managedFor', { client: i.client_name })}
                        </span>
                      }
                      checked={w.managed_addon}
                      disabled={managed.isPending}
                      onChange={(e) => managed.mutate({ id: w.id, enabled: e.target.checked })}
                    />
                  ) : (
                    '–'
                  )}
                </td>
                <td>
                  {w && (
                    <Button
                      aria-label={t('agency.resale.editFor', { client: i.client_name })}
                      onClick={() => setEditing(w)}
                    >
                      {t('agency.resale.edit')}
                    </Button>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row">{t('agency.resale.totals')}</th>
            <td>{usd(resale.totals.revenue_usd)}</td>
            <td>{usd(resale.totals.cost_usd)}</td>
            <td>{usd(resale.totals.margin_usd)}</td>
            <td colSpan={3} />
          </tr>
        </tfoot>
      </ScrollTable>
      {agency?.managed_addon_price_usd != null && (
        <p className="muted">{t('agency.resale.managedPrice', { price: usd(agency.managed_addon_price_usd) })}</p>
      )}
      <ReasonAlert error={managed.error} />
      {editing && <EditResale workspace={editing} onClose={() => setEditing(null)} />}
    </div>
  );
}

function EditResale({ workspace, onClose }: { workspace: ClientWorkspace; onClose: () => void }) {
  const { t } = useTranslation();
  const qc = useQueryClient();
  const [price, setPrice] = useState(workspace.resale_price_usd == null ? '' : String(workspace.resale_price_usd));
  const [collect, setCollect] = useState(workspace.collect_via_connect);
  const [email, setEmail] = useState(workspace.client_email ?? '');
  const save = useMutation({
    mutationFn: () =>
      data(
        api.PUT('/v1/billing/workspaces/{id}/resale', {
          params: { path: { id: workspace.id } },
          body: {
            resale_price_usd: Number(price || 0),
            collect_via_connect: collect,
            ...(email ? { client_email: email } : {}),
          },
        }),
      ),
    onSuccess: (next) => {
      qc.setQueryData(billingKeys.summary(), next);
      void qc.invalidateQueries({ queryKey: agencyKeys.all });
      onClose();
    },
  });
  return (
    <FormDialog
      title={t('agency.resale.editTitle', { client: workspace.client_name ?? workspace.name })}
      onClose={onClose}
      onSubmit={() => save.mutate()}
      submit={t('common.save')}
      pending={save.isPending}
    >
      <TextField
        label={t('agency.resale.priceLabel')}
        inputMode="decimal"
        value={price}
        onChange={(e) => setPrice(e.target.value)}
        error={fieldError(save.error, 'resale_price_usd')}
      />
      <CheckboxField
        label={t('agency.resale.collectLabel')}
        hint={t('agency.resale.collectHint')}
        checked={collect}
        onChange={(e) => setCollect(e.target.checked)}
      />
      <TextField
        label={t('agency.resale.emailLabel')}
        type="email"
        value={email}
        onChange={(e) => setEmail(e.target.value)}
        error={fieldError(save.error, 'client_email')}
      />
      <ReasonAlert error={save.error} fields={['resale_price_usd', 'client_email']} />
    </FormDialog>
  );
}
