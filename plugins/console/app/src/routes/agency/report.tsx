import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import { agencyClientQuery, agencyKeys, agencyReportQuery } from '../../queries/agency';
import {
  Chart,
  Form,
  FormActions,
  LoadingState,
  TextField,
  fieldError,
  useFormat,
  useToast,
  type ChartSeries,
} from '../../ui';
import { ReasonAlert } from '../billing/reason';
import { AgencyError, AgencyNav } from './nav';
import '../workspaces/workspaces.css';
import '../billing/billing.css';
import { lastDayOf } from '../billing/table';

/** /agency/reports/:id: the report as the client will read it, then whom to send it to. */
export default function AgencyReportPage() {
  const { id = '' } = useParams();
  const { t } = useTranslation();
  const fmt = useFormat();
  const report = useQuery(agencyReportQuery(id));
  const r = report.data;
  const x = useMemo(() => (r ? r.figures.weekly.map((w) => new Date(w.period_start)) : []), [r]);
  const series = useMemo<ChartSeries[]>(
    () =>
      r
        ? [
            { label: t('agency.report.opened'), values: r.figures.weekly.map((w) => w.tickets) },
            { label: t('agency.report.resolved'), values: r.figures.weekly.map((w) => w.resolved) },
            { label: t('agency.report.fixed'), values: r.figures.weekly.map((w) => w.fixed) },
          ]
        : [],
    [r, t],
  );
  if (report.isPending) return <LoadingState />;
  if (report.isError)
    return (
      <div className="stack">
        <AgencyNav />
        <AgencyError error={report.error} retry={() => void report.refetch()} />
      </div>
    );
  const f = report.data.figures;
  const minutes = (v: number | null) => (v == null ? '–' : t('agency.report.minutes', { n: fmt.number(v) }));
  return (
    <div className="stack">
      <h1>{t('agency.report.title', { client: report.data.client_name, month: report.data.month })}</h1>
      <AgencyNav />
      <p>
        <Link to={`/agency/clients/${report.data.workspace_id}`}>
          {t('agency.report.backToClient', { client: report.data.client_name })}
        </Link>
      </p>
      <section className="card stack" aria-labelledby="report-preview">
        <h2 id="report-preview">{t('agency.report.preview')}</h2>
        <p className="muted">
          {t('agency.report.about', {
            start: fmt.date(report.data.period.start),
            end: fmt.date(lastDayOf(report.data.period.end)),
            locale: t(`common.locales.${report.data.locale}`),
          })}
        </p>
        <dl className="billing-figures">
          <div>
            <dt>{t('agency.report.opened')}</dt>
            <dd>{fmt.number(f.tickets.opened)}</dd>
          </div>
          <div>
            <dt>{t('agency.report.resolved')}</dt>
            <dd>{fmt.number(f.tickets.resolved)}</dd>
          </div>
          <div>
            <dt>{t('agency.report.fixed')}</dt>
            <dd>{fmt.number(f.tickets.fixed)}</dd>
          </div>
          <div>
            <dt>{t('agency.report.answered')}</dt>
            <dd>{fmt.number(f.tickets.answered_without_fix)}</dd>
          </div>
          <div>
            <dt>{t('agency.report.escalated')}</dt>
            <dd>{fmt.number(f.tickets.escalated)}</dd>
          </div>
          <div>
            <dt>{t('agency.report.firstResponse')}</dt>
            <dd>{minutes(f.first_response.median_minutes)}</dd>
          </div>
          <div>
            <dt>{t('agency.report.resolution')}</dt>
            <dd>{minutes(f.resolution.median_minutes)}</dd>
          </div>
          {f.fixes && (
            <div>
              <dt>{t('agency.report.fixes')}</dt>
              <dd>{t('agency.report.fixesValue', { succeeded: f.fixes.succeeded, attempted: f.fixes.attempted })}</dd>
            </div>
          )}
        </dl>
        <Chart title={t('agency.report.weekly')} x={x} series={series} />
        <p className="muted">{t('agency.report.pdf', { file: report.data.pdf_filename })}</p>
      </section>
      <Send
        reportId={report.data.id}
        workspaceId={report.data.workspace_id}
        status={report.data.status}
        sentAt={report.data.sent_at}
        sendCount={report.data.send_count}
        recipients={report.data.recipients}
      />
    </div>
  );
}

function Send({
  reportId,
  workspaceId,
  status,
  sentAt,
  sendCount,
  recipients,
}: {
  reportId: string;
  workspaceId: string;
  status: 'generated' | 'sent';
  sentAt: string | null;
  sendCount: number;
  recipients: string[];
}) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const toast = useToast();
  const qc = useQueryClient();
  const client = useQuery(agencyClientQuery(workspaceId));
  const defaults = recipients.length > 0 ? recipients : (client.data?.report_settings.recipients ?? []);
  const [edited, setEdited] = useState<string | null>(null);
  const value = edited ?? defaults.join(', ');
  const send = useMutation({
    mutationFn: () => {
      const list = value
        .split(/[,\s]+/)
        .map((s) => s.trim())
        .filter(Boolean);
      return data(
        api.POST('/v1/agency/reports/{id}/send', {
          params: { path: { id: reportId } },
          body: list.length > 0 ? { recipients: list } : {},
        }),
      );
    },
    onSuccess: (r) => {
      qc.setQueryData(agencyKeys.report(r.id), r);
      void qc.invalidateQueries({ queryKey: agencyKeys.reports(workspaceId) });
      toast.success(t('agency.report.sentToast', { to: r.recipients.join(', ') }));
    },
  });
  return (
    <section className="card stack" aria-labelledby="report-send">
      <h2 id="report-send">{t('agency.report.send')}</h2>
      {status === 'sent' && (
        <div className="alert alert-success" role="status">
          {t('agency.report.sentState', { when: fmt.dateTime(sentAt), count: sendCount, to: recipients.join(', ') })}
        </div>
      )}
      <Form className="stack" onSubmit={() => send.mutate()}>
        <TextField
          label={t('agency.report.recipients')}
          hint={t('agency.report.recipientsHint')}
          value={value}
          onChange={(e) => setEdited(e.target.value)}
          error={fieldError(send.error, 'recipients')}
        />
        <ReasonAlert error={send.error} fields={['recipients']} />
        <FormActions
          submit={status === 'sent' ? t('agency.report.sendAgain') : t('agency.report.sendNow')}
          pending={send.isPending}
        />
      </Form>
    </section>
  );
}
