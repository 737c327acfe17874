import type { FixActions } from './services/fix-actions.js';
import type { FixRecords } from './services/fix-records.js';
import type { JobPayloads } from './services/job-payload.js';
import type { JobQueue } from './services/job-queue.js';
import type { JobWorker } from './services/job-worker.js';
import type { FixLoop } from './services/loop.js';
import type { PullRequests } from './services/pull-requests.js';
import type { Releases } from './services/releases.js';

/** What the fixes plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    fixJobs: JobQueue;
    fixWorker: JobWorker;
    fixLoop: FixLoop;
    fixPayloads: JobPayloads;
    fixRecords: FixRecords;
    fixPullRequests: PullRequests;
    fixActions: FixActions;
    fixReleases: Releases;
  }
}
