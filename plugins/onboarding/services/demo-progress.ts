import type { Knex } from 'knex';
import type { DemoRunModel, DemoStatus } from '../models.js';
import type { OnboardingOptions } from '../options.js';
import type { FixProgress, OnboardingDeps } from './deps.js';

/** What the fix loop has done with the run's tickets (through its `fixRecords`), and the first draft of the current diagnosis. */
export interface Progress extends FixProgress {
  draft: { kind: string; body_md: string; created_at: Date } | null;
}

/** The run's tickets as the fix loop left them. */
export async function readProgress(d: OnboardingDeps, db: Knex, run: DemoRunModel): Promise<Progress> {
  const ids = run.ticket_ids.length ? run.ticket_ids : run.ticket_id ? [run.ticket_id] : [];
  const fix = d.fixRecords
    ? await d.fixRecords.progress(db, run.org_id, ids, run.ticket_id)
    : { jobs: [], diagnoses: [], attempt: null };
  const current = fix.diagnoses.filter((x) => x.ticket_id === run.ticket_id).pop();
  const draft = current
    ? (((await db('ticket_drafts')
        .where({ org_id: run.org_id, diagnosis_id: current.id })
        .orderBy('created_at')
        .select('kind', 'body_md', 'created_at')
        .first()) as Progress['draft'] | undefined) ?? null)
    : null;
  return { ...fix, draft };
}

/**
 * What the run's row should say given its tickets' progress: status, phase, outcome, error, cost
 * (failed on a dead job, on the timeout, or on the managed cap).
 */
export function deriveRun(run: DemoRunModel, p: Progress, now: Date, options: OnboardingOptions) {
  const cost = p.jobs.reduce((s, j) => s + Number(j.cost_usd || 0), 0);
  const first = p.diagnoses[0];
  const current = p.diagnoses.filter((x) => x.ticket_id === run.ticket_id).pop();
  const job = p.jobs.filter((j) => j.ticket_id === run.ticket_id && j.kind === 'diagnose').pop();
  let status: DemoStatus = run.status;
  let phase = run.phase;
  let outcome: string | null = run.outcome;
  let errorCode = run.error_code;
  let errorDetail = run.error_detail;
  let completedAt: Date | string | null = run.completed_at;
  const done = (s: DemoStatus, ph: string) => {
    status = s;
    phase = ph;
    completedAt ??= now;
  };
  if (run.error_code === 'no_case') return { cost_usd: cost };
  if (current) {
    errorCode = null;
    errorDetail = null;
    if (current.outcome === 'fix_queued') {
      const a = p.attempt;
      if (!a || a.status === 'running') {
        status = 'running';
        phase = 'fixing';
        completedAt = null;
        outcome = null;
      } else if (a.status === 'verified' || a.status === 'merged') {
        outcome = a.pr_number ? 'pull_request' : 'fix_ready';
        done('completed', 'done');
      } else {
        outcome = 'fix_not_verified';
        done('completed', 'done');
      }
    } else {
      outcome = current.outcome === 'escalated' ? 'escalated' : 'answer';
      done('completed', 'done');
    }
  } else if (job && ['failed', 'dead', 'cancelled'].includes(job.status)) {
    errorCode = job.error_code === 'timed_out' || job.error_code === 'timeout' ? 'timed_out' : 'job_failed';
    errorDetail = (job.error_detail ?? `The diagnosis job ${job.status}.`).slice(0, 500);
    done('failed', 'failed');
  } else if (job && job.status === 'succeeded') {
    errorCode = 'job_failed';
    errorDetail = 'The diagnosis job ended without a diagnosis.';
    done('failed', 'failed');
  } else if (run.status !== 'failed' && run.status !== 'completed') {
    status = 'running';
    phase = job
      ? job.mode === 'runner' || job.mode === 'mcp'
        ? 'waiting_runner'
        : 'diagnosing'
      : run.indexed
        ? 'reading_code'
        : 'indexing';
    if (now.getTime() - new Date(run.started_at).getTime() > options.demoTimeoutMinutes * 60_000) {
      errorCode = 'timed_out';
      errorDetail = 'No diagnosis arrived in time.';
      done('failed', 'failed');
    }
  }
  if (status !== 'completed' && run.mode === 'managed' && Number(run.cap_usd) > 0 && cost >= Number(run.cap_usd)) {
    errorCode = 'budget_exhausted';
    errorDetail = `The demo reached its cap of ${Number(run.cap_usd).toFixed(2)} USD.`;
    done('failed', 'failed');
  }
  return {
    status,
    phase,
    outcome,
    error_code: errorCode,
    error_detail: errorDetail,
    cost_usd: cost,
    first_diagnosis_at: first ? new Date(first.created_at) : null,
    completed_at: completedAt ? new Date(completedAt) : null,
    indexed: run.indexed || !!job,
  };
}
