import { useMemo, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useQuery } from '@tanstack/react-query';
import type { Schema } from '../../api/types';
import { metricsQuery, type Interval } from '../../queries/analytics';
import { useMe } from '../../queries/session';
import { useCurrentWorkspace } from '../../queries/workspaces';
import { Chart, QueryView, SelectField, useFormat, type ChartSeries } from '../../ui';
import { Sponsorships } from './sponsorships';
import '../billing/billing.css';
import { lastDayOf } from '../billing/table';

type Metrics = Schema<'Metrics'>;
const RANGES = [7, 30, 90, 365] as const;
const ORIGINS = ['email', 'widget', 'codehost', 'proactive'] as const;
const CATEGORIES = ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'] as const;

/**
 * /analytics: the support metrics of the organization (owners and admins) or of one workspace
 * (everyone who can open it), over a range, as figures and charts (each with its table).
 */
export default function Analytics() {
  const { t } = useTranslation();
  const me = useMe().data!;
  const { workspaceId: current } = useCurrentWorkspace();
  const orgWide = me.user.role === 'owner' || me.user.role === 'admin';
  const workspaces = me.workspaces.filter((w) => !w.archived_at);
  // Owners and admins start with the whole organization; others with the workspace they work in.
  const [scope, setScope] = useState<string>(orgWide ? '' : (current ?? workspaces[0]?.id ?? ''));
  const [days, setDays] = useState<number>(30);
  const [interval, setInterval] = useState<Interval | ''>('');
  const metrics = useQuery({
    ...metricsQuery({ workspaceId: scope || null, days, interval: interval || null }),
    enabled: orgWide || !!scope,
  });
  return (
    <div className="stack">
      <h1>{t('analytics.title')}</h1>
      <div className="row">
        <SelectField label={t('analytics.scope')} value={scope} onChange={(e) => setScope(e.target.value)}>
          {orgWide && <option value="">{t('analytics.organization')}</option>}
          {workspaces.map((w) => (
            <option key={w.id} value={w.id}>
              {w.client_name ? `${w.name} (${w.client_name})` : w.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label={t('analytics.range')}
          value={String(days)}
          onChange={(e) => setDays(Number(e.target.value))}
        >
          {RANGES.map((d) => (
            <option key={d} value={d}>
              {t('analytics.lastDays', { count: d })}
            </option>
          ))}
        </SelectField>
        <SelectField
          label={t('analytics.interval')}
          value={interval}
          onChange={(e) => setInterval(e.target.value as Interval | '')}
        >
          <option value="">{t('analytics.intervals.auto')}</option>
          <option value="day">{t('analytics.intervals.day')}</option>
          <option value="week">{t('analytics.intervals.week')}</option>
          <option value="month">{t('analytics.intervals.month')}</option>
        </SelectField>
      </div>
      {!orgWide && !scope ? (
        <p className="muted">{t('analytics.noWorkspace')}</p>
      ) : (
        <QueryView query={metrics}>{(m) => <MetricsView metrics={m} />}</QueryView>
      )}
      {me.staff && <Sponsorships />}
    </div>
  );
}

function MetricsView({ metrics: m }: { metrics: Metrics }) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const minutes = (v: number | null) =>
    v == null ? '–' : t('analytics.minutes', { n: fmt.number(v, { maximumFractionDigits: 1 }) });
  const pct = (v: number | null) => (v == null ? '–' : fmt.number(v, { style: 'percent', maximumFractionDigits: 1 }));
  const usd = (v: number | null) => (v == null ? '–' : fmt.usd(v));
  const x = useMemo(() => m.series.map((s) => new Date(s.period_start)), [m]);
  const volume = useMemo<ChartSeries[]>(
    () => [
      { label: t('analytics.series.tickets'), values: m.series.map((s) => s.tickets) },
      { label: t('analytics.series.resolved'), values: m.series.map((s) => s.resolved) },
      { label: t('analytics.series.fixed'), values: m.series.map((s) => s.fixed) },
    ],
    [m, t],
  );
  const times = useMemo<ChartSeries[]>(
    () => [
      { label: t('analytics.series.firstResponse'), values: m.series.map((s) => s.median_first_response_minutes) },
      { label: t('analytics.series.resolution'), values: m.series.map((s) => s.median_resolution_minutes) },
    ],
    [m, t],
  );
  const originX = useMemo(() => ORIGINS.map((o) => t(`analytics.origins.${o}`)), [t]);
  const origin = useMemo<ChartSeries[]>(
    () => [{ label: t('analytics.series.tickets'), values: ORIGINS.map((o) => m.volume.by_origin[o]) }],
    [m, t],
  );
  const categoryX = useMemo(() => CATEGORIES.map((c) => t(`analytics.categories.${c}`)), [t]);
  const category = useMemo<ChartSeries[]>(
    () => [{ label: t('analytics.series.tickets'), values: CATEGORIES.map((c) => m.volume.by_category[c]) }],
    [m, t],
  );
  return (
    <>
      <p className="muted">
        {t('analytics.rangeText', {
          from: fmt.date(m.range.from),
          to: fmt.date(lastDayOf(m.range.to)),
          interval: t(`analytics.intervals.${m.range.interval}`).toLowerCase(),
        })}
      </p>
      <section className="card stack" aria-labelledby="analytics-figures">
        <h2 id="analytics-figures">{t('analytics.figures')}</h2>
        <dl className="billing-figures">
          <div>
            <dt>{t('analytics.volume')}</dt>
            <dd>{fmt.number(m.volume.total)}</dd>
          </div>
          <div>
            <dt>{t('analytics.firstResponse')}</dt>
            <dd>{minutes(m.first_response.median_minutes)}</dd>
          </div>
          <div>
            <dt>{t('analytics.firstResponseP90')}</dt>
            <dd>{minutes(m.first_response.p90_minutes)}</dd>
          </div>
          <div>
            <dt>{t('analytics.resolution')}</dt>
            <dd>{minutes(m.resolution.median_minutes)}</dd>
          </div>
          <div>
            <dt>{t('analytics.answerRate')}</dt>
            <dd>{pct(m.deflection.answer_rate)}</dd>
          </div>
          <div>
            <dt>{t('analytics.fixRate')}</dt>
            <dd>{pct(m.deflection.fix_rate)}</dd>
          </div>
          <div>
            <dt>{t('analytics.escalated')}</dt>
            <dd>{fmt.number(m.deflection.escalated)}</dd>
          </div>
          {m.fixes && (
            <div>
              <dt>{t('analytics.fixes')}</dt>
              <dd>{t('analytics.fixesValue', { succeeded: m.fixes.succeeded, attempted: m.fixes.attempted })}</dd>
            </div>
          )}
          {m.fixes && (
            <div>
              <dt>{t('analytics.costPerFix')}</dt>
              <dd>{usd(m.fixes.cost_per_fix_usd)}</dd>
            </div>
          )}
        </dl>
      </section>
      <section className="card stack" aria-labelledby="analytics-charts">
        <h2 id="analytics-charts">{t('analytics.charts')}</h2>
        <Chart title={t('analytics.chart.volume')} x={x} series={volume} />
        {/* Plain numbers: the title gives the unit, and the axis keeps its width. */}
        <Chart title={t('analytics.chart.times')} x={x} series={times} />
        <Chart title={t('analytics.chart.origin')} x={originX} series={origin} kind="bars" />
        <Chart title={t('analytics.chart.category')} x={categoryX} series={category} kind="bars" />
      </section>
    </>
  );
}
