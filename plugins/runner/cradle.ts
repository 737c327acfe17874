import type { AgentCredentials } from './services/credentials.js';
import type { JobApi } from './services/job-api.js';
import type { JobCodeHost } from './services/job-code-host.js';
import type { Runners } from './services/runners.js';

/** What the runner plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    runners: Runners;
    runnerJobApi: JobApi;
    runnerJobCodeHost: JobCodeHost;
    runnerAgentCredentials: AgentCredentials;
  }
}
