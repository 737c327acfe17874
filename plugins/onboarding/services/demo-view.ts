import type { DemoRunModel } from '../models.js';
import type { Progress } from './demo-progress.js';
import { iso } from '../../../core/http/times.js';

const FIX_REASONS = new Set(['verification_failed', 'tests_failed', 'tests_not_run_without_reason', 'other']);

/** The demo ticket as the DemoRun answer shows it. */
export interface DemoTicket {
  id: string;
  state: string;
  public_state: string;
}

/** The DemoRun answer of a synced run, from its progress, its ticket and its retry verdict. */
export function demoRunView(
  synced: DemoRunModel,
  p: Progress,
  ticket: DemoTicket | null,
  statusUrl: string | null,
  retry: { allowed: boolean; reason: string | null },
) {
  const current = p.diagnoses.filter((x) => x.ticket_id === synced.ticket_id).pop();
  const repoUrl = synced.repository?.html_url ?? null;
  const a = p.attempt;
  return {
    id: synced.id,
    status: synced.status,
    mode: synced.mode,
    phase: synced.phase,
    outcome: synced.outcome,
    done: synced.status === 'completed' || synced.status === 'failed',
    case_kind: synced.case_kind,
    source: synced.source
      ? {
          kind: synced.source.kind,
          error_group_id: synced.source.error_group_id ?? null,
          issue_number: synced.source.issue_number ?? null,
          issue_url: synced.source.issue_url ?? null,
          path: synced.source.path ?? null,
          line_start: synced.source.line_start ?? null,
          line_end: synced.source.line_end ?? null,
          readme_path: synced.source.readme_path ?? null,
        }
      : null,
    started_at: iso(synced.started_at),
    first_diagnosis_at: iso(synced.first_diagnosis_at),
    completed_at: iso(synced.completed_at),
    cost_usd: Number(synced.cost_usd),
    cap_usd: Number(synced.cap_usd),
    error: synced.error_code ? { code: synced.error_code, detail: synced.error_detail } : null,
    retry,
    attempts: synced.attempts,
    repository: synced.repository,
    email: synced.email,
    ticket,
    status_page_url: statusUrl,
    indexed: synced.indexed,
    diagnosis: current
      ? {
          category: current.category,
          confidence: Number(current.confidence),
          root_cause_md: current.root_cause_md,
          references: (current.references ?? []).map((r) => ({
            path: r.path,
            line_start: r.line_start ?? null,
            line_end: r.line_end ?? null,
            symbol: r.symbol ?? null,
            url:
              repoUrl && /^https?:/.test(repoUrl)
                ? `${repoUrl}/blob/HEAD/${r.path}${r.line_start ? `#L${r.line_start}` : ''}`
                : null,
          })),
          public_summary: current.public_summary,
          created_at: iso(current.created_at),
        }
      : null,
    draft: p.draft ? { kind: p.draft.kind, body_md: p.draft.body_md, created_at: iso(p.draft.created_at) } : null,
    fix: a
      ? {
          status:
            a.status === 'running'
              ? 'running'
              : a.status === 'verified' || a.status === 'merged'
                ? 'verified'
                : 'not_verified',
          verify_passed: a.verify_passed,
          tests_passed: a.tests_passed,
          tests_ran: a.tests_ran,
          reason: a.reason && FIX_REASONS.has(a.reason) ? a.reason : a.reason ? 'other' : null,
        }
      : null,
    pull_request: a?.pr_number
      ? {
          number: a.pr_number,
          url: a.pr_url,
          title: synced.email?.subject ?? null,
          branch: a.branch,
          draft: false,
          labeled: false,
        }
      : null,
    ticket_closed: ticket?.state === 'closed',
  };
}
