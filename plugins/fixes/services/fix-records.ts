import type { Knex } from 'knex';

/** Fix jobs of a period, totalled (analytics). Costs in USD as Postgres sums them. */
export interface FixJobTotals {
  /** Jobs of kind `fix`. */
  attempted: number;
  /** Jobs of kind `fix` that succeeded. */
  succeeded: number;
  /** Every job's cost, diagnoses included. */
  cost_usd: number;
  /** The cost of the `fix` jobs alone. */
  fix_cost_usd: number;
}

export interface FixJobRecord {
  id: string;
  ticket_id: string;
  kind: string;
  status: string;
  mode: string;
  cost_usd: string | number;
  error_code: string | null;
  error_detail: string | null;
  created_at: Date;
}
export interface FixDiagnosisRecord {
  id: string;
  ticket_id: string;
  category: string;
  confidence: number;
  root_cause_md: string;
  references: Array<{ path: string; line_start?: number; line_end?: number; symbol?: string | null }>;
  public_summary: string | null;
  outcome: string;
  created_at: Date;
}
export interface FixAttemptRecord {
  status: string;
  verify_passed: boolean;
  tests_passed: boolean;
  tests_ran: boolean;
  reason: string | null;
  pr_number: number | null;
  pr_url: string | null;
  branch: string;
}

/** What the fix loop has done with some tickets: their jobs and diagnoses (oldest first) and one ticket's latest attempt. */
export interface FixProgress {
  jobs: FixJobRecord[];
  diagnoses: FixDiagnosisRecord[];
  attempt: FixAttemptRecord | null;
}

/**
 * What other plugins read of the fix loop's records (container key `fixRecords`): analytics'
 * fix totals and the onboarding demo's progress. The fix tables stay this plugin's; a plugin
 * that reads them goes through here, and finds no `fixRecords` when the fix loop is off.
 * Every read is scoped to one organization.
 */
export class FixRecords {
  constructor(private readonly db: () => Knex) {}

  async jobTotals(q: { orgId: string; from: Date; to: Date; workspaceIds: string[] | null }): Promise<FixJobTotals> {
    const db = this.db();
    const b = db('fix_jobs').where('org_id', q.orgId).where('created_at', '>=', q.from).where('created_at', '<', q.to);
    if (q.workspaceIds) b.whereIn('workspace_id', q.workspaceIds);
    const row = (await b
      .select(
        db.raw(`count(*) filter (where kind = 'fix') as attempted`),
        db.raw(`count(*) filter (where kind = 'fix' and status = 'succeeded') as succeeded`),
        db.raw('coalesce(sum(cost_usd), 0) as cost'),
        db.raw(`coalesce(sum(cost_usd) filter (where kind = 'fix'), 0) as fix_cost`),
      )
      .first()) as Record<string, string | number>;
    return {
      attempted: Number(row.attempted),
      succeeded: Number(row.succeeded),
      cost_usd: Number(row.cost),
      fix_cost_usd: Number(row.fix_cost),
    };
  }

  /** Jobs and diagnoses of `ticketIds`, and the latest attempt of `attemptOf` (on `db`: the caller's transaction when it has one). */
  async progress(db: Knex, orgId: string, ticketIds: string[], attemptOf: string | null): Promise<FixProgress> {
    if (ticketIds.length === 0) return { jobs: [], diagnoses: [], attempt: null };
    const [jobs, diagnoses, attempt] = await Promise.all([
      db('fix_jobs').where({ org_id: orgId }).whereIn('ticket_id', ticketIds).orderBy('created_at') as Promise<
        FixJobRecord[]
      >,
      db('fix_diagnoses').where({ org_id: orgId }).whereIn('ticket_id', ticketIds).orderBy('created_at') as Promise<
        FixDiagnosisRecord[]
      >,
      attemptOf
        ? (db('fix_attempts')
            .where({ org_id: orgId, ticket_id: attemptOf })
            .orderBy('number', 'desc')
            .first() as Promise<FixAttemptRecord | undefined>)
        : undefined,
    ]);
    return { jobs, diagnoses, attempt: attempt ?? null };
  }
}
