import type { AgencyReports } from './services/reports.js';

/** What the agency plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    agencyReports: AgencyReports;
  }
}
