import { lazy, Suspense } from 'react';
import type { ChartProps } from './chart';
import { Spinner } from './spinner';

// uPlot (about a fifth of the console's first load) is loaded with the first chart a page shows.
const ChartOnUplot = lazy(() => import('./chart').then((m) => ({ default: m.Chart })));

/** A chart (ui/chart.tsx), loaded on first use: pages import it from 'ui' as before. */
export function Chart(props: ChartProps) {
  return (
    <Suspense fallback={<Spinner />}>
      <ChartOnUplot {...props} />
    </Suspense>
  );
}
