import type { MetricsService } from './services/metrics.js';

/** What the analytics plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    supportMetrics: MetricsService;
  }
}
