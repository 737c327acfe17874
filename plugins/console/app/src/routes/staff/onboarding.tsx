import { useCallback, useMemo, useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';
import type { Schema } from '../../api/types';
import { staffKeys } from '../../queries/staff';
import { Button, Chart, DataTable, ErrorState, LoadingState, TextField, useFormat, type Column } from '../../ui';
import { RequireStaff } from './require-staff';
import '../workspaces/workspaces.css';

type Range = { from?: string; to?: string };
type Recent = Schema<'OnboardingMetrics'>['recent'][number];

/** /staff/onboarding: how new organizations get through the demo (GET /v1/onboarding/metrics; staff). */
export default function StaffOnboarding() {
  return (
    <RequireStaff>
      <Metrics />
    </RequireStaff>
  );
}

function Metrics() {
  const { t } = useTranslation();
  const fmt = useFormat();
  const [draft, setDraft] = useState({ from: '', to: '' });
  const [range, setRange] = useState<Range>({});
  const metrics = useQuery({
    queryKey: [...staffKeys.all, 'onboarding', range],
    queryFn: () => data(api.GET('/v1/onboarding/metrics', { params: { query: range } })),
  });
  const cases = useMemo(() => metrics.data?.by_case ?? [], [metrics.data]);
  const x = useMemo(() => cases.map((c) => t(`staff.onboarding.cases.${c.kind}`)), [cases, t]);
  const series = useMemo(() => [{ label: t('staff.onboarding.demos'), values: cases.map((c) => c.count) }], [cases, t]);
  const seconds = useCallback(
    (v: number | null) => (v == null ? '—' : t('staff.onboarding.seconds', { n: fmt.number(Math.round(v)) })),
    [t, fmt],
  );
  const columns = useMemo<Column<Recent>[]>(
    () => [
      {
        header: t('staff.onboarding.organization'),
        cell: (r) => (
          <Link to={`/staff/organizations/${r.org_id}`}>
            <code>{r.org_id}</code>
          </Link>
        ),
      },
      { header: t('staff.onboarding.signedUp'), cell: (r) => fmt.dateTime(r.signup_at) },
      { header: t('staff.onboarding.status'), cell: (r) => r.status },
      {
        header: t('staff.onboarding.case'),
        cell: (r) => (r.case_kind ? t(`staff.onboarding.cases.${r.case_kind}`) : '—'),
      },
      { header: t('staff.onboarding.toDiagnosis'), cell: (r) => seconds(r.seconds_to_first_diagnosis) },
      {
        header: t('staff.onboarding.cost'),
        cell: (r) => fmt.usd(r.cost_usd),
      },
    ],
    [t, fmt, seconds],
  );
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setRange({ ...(draft.from ? { from: draft.from } : {}), ...(draft.to ? { to: draft.to } : {}) });
  };
  const m = metrics.data;
  return (
    <div className="stack">
      <h1>{t('staff.onboarding.title')}</h1>
      <p className="muted">{t('staff.onboarding.intro')}</p>
      <form className="card row" onSubmit={apply} aria-label={t('staff.onboarding.period')}>
        <TextField
          label={t('staff.onboarding.from')}
          type="date"
          value={draft.from}
          onChange={(e) => setDraft({ ...draft, from: e.target.value })}
        />
        <TextField
          label={t('staff.onboarding.to')}
          type="date"
          value={draft.to}
          onChange={(e) => setDraft({ ...draft, to: e.target.value })}
        />
        <Button type="submit" variant="primary">
          {t('staff.onboarding.show')}
        </Button>
      </form>
      {metrics.isPending ? (
        <LoadingState />
      ) : !m ? (
        <ErrorState error={metrics.error} retry={() => void metrics.refetch()} />
      ) : (
        <>
          <p className="muted">{t('staff.onboarding.between', { from: fmt.date(m.from), to: fmt.date(m.to) })}</p>
          <section className="card" aria-labelledby="onboarding-figures">
            <h2 id="onboarding-figures">{t('staff.onboarding.figures')}</h2>
            <dl className="ws-facts">
              <dt>{t('staff.onboarding.signups')}</dt>
              <dd>{fmt.number(m.signups)}</dd>
              <dt>{t('staff.onboarding.started')}</dt>
              <dd>{fmt.number(m.demos_started)}</dd>
              <dt>{t('staff.onboarding.completed')}</dt>
              <dd>{fmt.number(m.demos_completed)}</dd>
              <dt>{t('staff.onboarding.failed')}</dt>
              <dd>{fmt.number(m.demos_failed)}</dd>
              <dt>{t('staff.onboarding.median')}</dt>
              <dd>{seconds(m.time_to_first_diagnosis.median_s)}</dd>
              <dt>{t('staff.onboarding.p90')}</dt>
              <dd>{seconds(m.time_to_first_diagnosis.p90_s)}</dd>
              <dt>{t('staff.onboarding.underTarget', { target: fmt.number(m.target_s) })}</dt>
              <dd>{fmt.number(m.time_to_first_diagnosis.under_target_ratio, { style: 'percent' })}</dd>
              <dt>{t('staff.onboarding.totalCost')}</dt>
              <dd>{fmt.usd(m.cost.total_usd)}</dd>
              <dt>{t('staff.onboarding.averageCost')}</dt>
              <dd>{fmt.usd(m.cost.average_usd)}</dd>
            </dl>
          </section>
          {cases.length > 0 && (
            <section className="card">
              <Chart title={t('staff.onboarding.byCase')} x={x} series={series} kind="bars" />
            </section>
          )}
          <section className="stack" aria-labelledby="onboarding-recent">
            <h2 id="onboarding-recent">{t('staff.onboarding.recent')}</h2>
            {m.recent.length === 0 ? (
              <p className="muted">{t('staff.onboarding.none')}</p>
            ) : (
              <DataTable
                caption={t('staff.onboarding.recent')}
                columns={columns}
                rows={m.recent}
                rowKey={(r) => r.org_id}
              />
            )}
          </section>
        </>
      )}
    </div>
  );
}
