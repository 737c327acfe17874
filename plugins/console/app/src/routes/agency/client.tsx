import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { agencyClientQuery, agencyKeys } from '../../queries/agency';
import {
  Button,
  Form,
  KeysetTable,
  LoadingState,
  TextField,
  fieldError,
  useFormat,
  useKeysetQuery,
  type Column,
} from '../../ui';
import { ReasonAlert } from '../billing/reason';
import { AgencyError, AgencyNav, useTicketsText } from './nav';
import '../workspaces/workspaces.css';

type Report = Schema<'AgencyReport'>;

/** The last complete UTC month, as the API's default: YYYY-MM. */
function lastMonth(): string {
  const now = new Date();
  const d = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 1));
  return d.toISOString().slice(0, 7);
}

/** /agency/clients/:id: one client's card, service levels, report settings, consent, billing; its monthly reports. */
export default function AgencyClient() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const fmt = useFormat();
  const client = useQuery(agencyClientQuery(id));
  const ticketsText = useTicketsText();
  const pct = (v: number | null) => (v == null ? '–' : fmt.number(v, { style: 'percent' }));
  if (client.isPending) return <LoadingState />;
  if (client.isError)
    return (
      <div className="stack">
        <AgencyNav />
        <AgencyError error={client.error} retry={() => void client.refetch()} />
      </div>
    );
  const c = client.data;
  const sl = c.service_levels;
  const last30 = sl.last_30_days;
  return (
    <div className="stack">
      <h1>{c.client_name}</h1>
      <AgencyNav />
      <section className="card stack" aria-labelledby="client-card">
        <h2 id="client-card">{t('agency.client.title')}</h2>
        <dl className="ws-facts">
          <dt>{t('agency.client.workspace')}</dt>
          <dd>
            <Link to={`/workspaces/${c.workspace_id}`}>{c.name}</Link>
          </dd>
          <dt>{t('agency.client.tickets')}</dt>
          <dd>{ticketsText(c.tickets)}</dd>
          <dt>{t('agency.client.serviceLevels')}</dt>
          <dd>{t('agency.client.targets', { first: sl.first_response_minutes, resolution: sl.resolution_minutes })}</dd>
          <dt>{t('agency.client.last30')}</dt>
          <dd>
            {t('agency.client.met', {
              responded: last30.responded,
              first: pct(last30.first_response_met_rate),
              resolved: last30.resolved,
              resolution: pct(last30.resolution_met_rate),
            })}
          </dd>
          <dt>{t('agency.client.reportRecipients')}</dt>
          <dd>{c.report_settings.recipients.join(', ') || t('agency.client.nobody')}</dd>
          <dt>{t('agency.client.autoSend')}</dt>
          <dd>{c.report_settings.auto_send ? t('agency.yes') : t('agency.no')}</dd>
          <dt>{t('agency.client.consent')}</dt>
          <dd>
            {[
              t(`agency.client.share.${c.consent.share_policy}`),
              c.consent.patterns_opt_in ? t('agency.client.patternsOn') : t('agency.client.patternsOff'),
              c.consent.notify_affected_users ? t('agency.client.notifyOn') : t('agency.client.notifyOff'),
            ].join('; ')}
          </dd>
          <dt>{t('agency.client.price')}</dt>
          <dd>
            {c.billing.resale_price_usd == null ? t('agency.noPrice') : fmt.usd(c.billing.resale_price_usd)}
            {c.billing.collect_via_connect
              ? ` · ${t('agency.client.collected', { email: c.billing.client_email ?? '' })}`
              : ''}
          </dd>
        </dl>
      </section>
      <Reports workspaceId={c.workspace_id} />
    </div>
  );
}

/** The client's monthly reports: generate one for a month, then preview it before sending. */
function Reports({ workspaceId }: { workspaceId: string }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const navigate = useNavigate();
  const qc = useQueryClient();
  const [month, setMonth] = useState(lastMonth);
  const query = useKeysetQuery<Report>(agencyKeys.reports(workspaceId), (cursor) =>
    data(api.GET('/v1/agency/reports', { params: { query: { cursor, workspace_id: workspaceId } } })),
  );
  const generate = useMutation({
    mutationFn: () => data(api.POST('/v1/agency/reports', { body: { workspace_id: workspaceId, month } })),
    onSuccess: (r) => {
      qc.setQueryData(agencyKeys.report(r.id), r);
      void qc.invalidateQueries({ queryKey: agencyKeys.reports(workspaceId) });
      void navigate(`/agency/reports/${r.id}`);
    },
  });
  const columns: Column<Report>[] = [
    {
      header: t('agency.reports.month'),
      cell: (r) => <Link to={`/agency/reports/${r.id}`}>{t('agency.reports.open', { month: r.month })}</Link>,
    },
    { header: t('agency.reports.status'), cell: (r) => t(`agency.reports.statuses.${r.status}`) },
    { header: t('agency.reports.tickets'), cell: (r) => fmt.number(r.figures.tickets.opened) },
    {
      header: t('agency.reports.sent'),
      cell: (r) =>
        r.sent_at ? t('agency.reports.sentTo', { when: fmt.dateTime(r.sent_at), count: r.send_count }) : '–',
    },
  ];
  return (
    <section className="card stack" aria-labelledby="client-reports">
      <h2 id="client-reports">{t('agency.reports.title')}</h2>
      <KeysetTable
        caption={t('agency.reports.title')}
        columns={columns}
        query={query}
        rowKey={(r) => r.id}
        emptyTitle={t('agency.reports.empty')}
      />
      <Form className="row" onSubmit={() => generate.mutate()}>
        <TextField
          label={t('agency.reports.monthLabel')}
          type="month"
          value={month}
          onChange={(e) => setMonth(e.target.value)}
          error={fieldError(generate.error, 'month')}
        />
        <Button type="submit" variant="primary" pending={generate.isPending}>
          {t('agency.reports.generate')}
        </Button>
      </Form>
      <ReasonAlert error={generate.error} fields={['month']} />
    </section>
  );
}
