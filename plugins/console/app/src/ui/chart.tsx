import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { useFormat } from './format';

export interface ChartSeries {
  label: string;
  /** One value per point of `x`; null where there is no value (a gap, not a zero). */
  values: (number | null)[];
}

export interface ChartProps {
  /** The chart's title: its caption, and the name screen readers hear. */
  title: string;
  /** Dates (a time axis) or labels (one bar or point per label). */
  x: Date[] | string[];
  series: ChartSeries[];
  kind?: 'line' | 'bars';
  height?: number;
  /** How a value reads in the table and the tooltip (a count, a duration, a percentage). */
  formatValue?: (v: number) => string;
  /** How a date reads in the table (default: the day; hourly data passes a date and time). */
  formatTime?: (d: Date) => string;
}

/**
 * A chart on uPlot (a small canvas chart library) with its data as a table next to it: the
 * canvas is for eyes, the table (under "Show as a table") for screen readers and for copying.
 * Colors come from the theme's CSS variables, so light, dark and the brand color apply.
 */
export function Chart({ title, x, series, kind = 'line', height = 220, formatValue, formatTime }: ChartProps) {
  const { t } = useTranslation();
  const fmt = useFormat();
  const id = useId();
  const box = useRef<HTMLDivElement>(null);
  const isTime = x.length > 0 && x[0] instanceof Date;
  const label = (i: number) =>
    isTime ? (formatTime ?? ((d: Date) => fmt.date(d.toISOString())))((x as Date[])[i]!) : (x as string[])[i]!;
  const show = formatValue ?? ((v: number) => fmt.number(v));
  // The canvas reads the formatter at draw time: a new function per render must not rebuild the chart.
  const format = useRef(show);
  format.current = show;
  const paint = usePaintVersion();

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const palette = ['--brand', '--chart-2', '--chart-3', '--chart-4'].map((v) => resolveColor(el, v));
    const text = resolveColor(el, '--text');
    const grid = resolveColor(el, '--border');
    const xs = isTime ? (x as Date[]).map((d) => d.getTime() / 1000) : x.map((_, i) => i);
    const data: uPlot.AlignedData = [xs, ...series.map((s) => s.values)];
    const bars = kind === 'bars' ? uPlot.paths.bars!({ size: [0.6, 48] }) : undefined;
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 } };
    const opts: uPlot.Options = {
      width: Math.max(el.clientWidth, 240),
      height,
      legend: { show: series.length > 1 },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: isTime, ...(isTime ? {} : { range: [-0.5, xs.length - 0.5] as uPlot.Range.MinMax }) } },
      axes: [
        {
          ...axis,
          ...(isTime
            ? {}
            : { splits: () => xs, values: (_u: uPlot, ticks: number[]) => ticks.map((i) => (x as string[])[i] ?? '') }),
        },
        { ...axis, values: (_u: uPlot, ticks: number[]) => ticks.map((v) => format.current(v)) },
      ],
      series: [
        {},
        ...series.map((s, i) => ({
          label: s.label,
          stroke: palette[i % palette.length],
          fill: kind === 'bars' ? palette[i % palette.length] : undefined,
          width: 2,
          paths: bars,
          points: { show: kind === 'line' && xs.length < 40 },
          value: (_u: uPlot, v: number | null) => (v == null ? '–' : format.current(v)),
        })),
      ],
    };
    const chart = new uPlot(opts, data, el);
    const resize = new ResizeObserver(() => chart.setSize({ width: Math.max(el.clientWidth, 240), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
    // Rebuilt when the data changes (callers memoize x and series) or the theme repaints the page.
  }, [x, series, kind, height, isTime, paint]);

  return (
    <figure className="chart" aria-labelledby={id}>
      <figcaption id={id} className="chart-title">
        {title}
      </figcaption>
      <div
        ref={box}
        className="chart-canvas"
        role="img"
        aria-label={t('common.chart.summary', { title, count: x.length })}
      />
      <details className="chart-table">
        <summary>{t('common.chart.showTable')}</summary>
        <table>
          <caption className="visually-hidden">{title}</caption>
          <thead>
            <tr>
              <th scope="col">{isTime ? t('common.chart.date') : t('common.chart.item')}</th>
              {series.map((s) => (
                <th scope="col" key={s.label}>
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {x.map((_, i) => (
              <tr key={i}>
                <th scope="row">{label(i)}</th>
                {series.map((s) => (
                  <td key={s.label}>{s.values[i] == null ? '–' : show(s.values[i])}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}

/** A CSS color variable as the canvas needs it: resolved (light-dark(), the brand override) to rgb. */
function resolveColor(el: HTMLElement, variable: string): string {
  const probe = document.createElement('span');
  probe.style.color = `var(${variable}, currentColor)`;
  el.appendChild(probe);
  const rgb = getComputedStyle(probe).color;
  probe.remove();
  return rgb;
}

/** Changes when the page's colors may have: the theme switch, the brand color, the system scheme. */
function usePaintVersion(): number {
  const [version, setVersion] = useState(0);
  useEffect(() => {
    const bump = () => setVersion((v) => v + 1);
    const observer = new MutationObserver(bump);
    observer.observe(document.documentElement, {
      attributes: true,
      attributeFilter: ['style', 'class', 'data-theme', 'data-brand'],
    });
    const scheme = matchMedia('(prefers-color-scheme: dark)');
    scheme.addEventListener('change', bump);
    return () => {
      observer.disconnect();
      scheme.removeEventListener('change', bump);
    };
  }, []);
  return version;
}
