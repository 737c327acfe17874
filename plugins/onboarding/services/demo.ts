import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { DemoRunModel } from '../models.js';
import { chooseCase } from './demo-cases.js';
import { deriveRun, readProgress } from './demo-progress.js';
import { demoRunView, type DemoTicket } from './demo-view.js';
import type { OnboardingDeps, RepositoryRow, WorkspaceLike } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

/**
 * The demo: a demo ticket made through the tickets service and diagnosed by the fix loop; the run
 * follows the ticket's diagnosis job (status, phase, outcome, cost, first diagnosis). Once per
 * organization in managed mode (unique index); the workspace demo runs through the workspace's
 * own execution settings without consent.
 */
export class DemoService {
  constructor(private readonly d: OnboardingDeps) {}

  async latest(orgId: string, trx?: Knex): Promise<DemoRunModel | undefined> {
    return DemoRunModel.query(trx ?? this.d.db)
      .forOrg(orgId)
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(1)
      .first();
  }

  async managedRun(orgId: string, trx?: Knex): Promise<DemoRunModel | undefined> {
    return DemoRunModel.query(trx ?? this.d.db)
      .forOrg(orgId)
      .where({ mode: 'managed' })
      .limit(1)
      .first();
  }

  /** Starts a run on the workspace's first repository: chooses the case, opens the demo ticket. */
  async start(
    actor: SignedInActor,
    ws: WorkspaceLike,
    repo: RepositoryRow,
    mode: 'managed' | 'workspace',
  ): Promise<DemoRunModel> {
    const principal = actor.principal;
    const locale = principal.locale === 'it' ? 'it' : 'en';
    const chosen = await chooseCase(this.d, principal.orgId, ws.id, repo, locale);
    const now = this.d.clock();
    try {
      return await this.insertRun(actor, ws, repo, mode, chosen, locale, now);
    } catch (err) {
      // Two starts at once: the unique index keeps one; the other is the same refusal.
      if (mode === 'managed' && isUniqueViolation(err))
        throw conflict('demo_already_used', 'The demo runs once per organization');
      throw err;
    }
  }

  private async insertRun(
    actor: SignedInActor,
    ws: WorkspaceLike,
    repo: RepositoryRow,
    mode: 'managed' | 'workspace',
    chosen: Awaited<ReturnType<typeof chooseCase>>,
    locale: string,
    now: Date,
  ): Promise<DemoRunModel> {
    const principal = actor.principal;
    return this.d.db.transaction(async (trx) => {
      if (mode === 'managed' && (await this.managedRun(principal.orgId, trx)))
        throw conflict('demo_already_used', 'The demo runs once per organization');
      if (mode === 'workspace') {
        const active = await DemoRunModel.query(trx)
          .forOrg(principal.orgId)
          .where({ mode: 'workspace' })
          .whereNotIn('status', ['completed', 'failed'])
          .limit(1)
          .first();
        if (active) throw conflict('demo_running', 'A workspace demo is still running', { run_id: active.id });
      }
      const id = newId(DemoRunModel.idPrefix);
      const base = {
        id,
        org_id: principal.orgId,
        workspace_id: ws.id,
        mode,
        started_at: now,
        cap_usd: mode === 'managed' ? this.d.options.demoCapUsd : 0,
        repository: { full_name: repo.full_name, html_url: repo.html_url },
        repository_id: repo.id,
        indexed: repo.index_status === 'ready',
        attempts: 1,
        ticket_ids: [] as string[],
      };
      let run: DemoRunModel;
      if (!chosen) {
        run = await DemoRunModel.query(trx)
          .insert({
            ...base,
            status: 'failed',
            phase: 'failed',
            completed_at: now,
            error_code: 'no_case',
            error_detail: 'The repository gave no error, issue, defect or README to build a demo from.',
          })
          .returning('*');
      } else {
        const ticket = await this.openTicket(trx, principal.orgId, ws.id, chosen, locale);
        run = await DemoRunModel.query(trx)
          .insert({
            ...base,
            status: 'running',
            phase: base.indexed ? 'reading_code' : 'indexing',
            case_kind: chosen.source.kind,
            source: chosen.source,
            email: chosen.email,
            ticket_id: ticket.id,
            ticket_ids: [ticket.id],
          })
          .returning('*');
      }
      if (mode === 'managed') await trx('organizations').where({ id: principal.orgId }).update({ demo_used_at: now });
      await this.d.audit.record(trx, {
        actor,
        action: mode === 'managed' ? 'onboarding.demo_started' : 'onboarding.workspace_demo_started',
        target: { type: 'demo_run', id },
        workspaceId: ws.id,
        changes: { demo: { before: null, after: run.status } },
        metadata: { case_kind: run.case_kind, ticket_id: run.ticket_id, cap_usd: Number(run.cap_usd) },
      });
      await this.d.outbox.add(
        trx,
        'onboarding.demo_started',
        { run_id: id, mode, workspace_id: ws.id, ticket_id: run.ticket_id, case_kind: run.case_kind },
        { orgId: principal.orgId },
      );
      return run;
    });
  }

  /** Reruns a demo that stopped without a diagnosis, within its cap: a new demo ticket, attempts + 1. */
  async retry(actor: SignedInActor): Promise<DemoRunModel> {
    const principal = actor.principal;
    const current = await this.latest(principal.orgId);
    if (!current) throw notFound('demo');
    const run = await this.sync(current);
    const retry = this.retryOf(run);
    if (!retry.allowed)
      throw conflict(
        'retry_not_allowed',
        'Only a demo that stopped without a diagnosis can be retried, within its cap',
        { reason: retry.reason },
      );
    const ws = await this.d.workspaces.get(principal.orgId, run.workspace_id);
    const repo =
      run.repository_id && this.d.repositories
        ? await this.d.repositories.loadForOrg(principal.orgId, run.repository_id).catch(() => null)
        : null;
    if (!repo) throw httpError(422, 'no_repository', 'The demo repository is no longer connected');
    const locale = principal.locale === 'it' ? 'it' : 'en';
    const chosen = await chooseCase(this.d, principal.orgId, ws.id, repo, locale);
    return this.d.db.transaction(async (trx) => {
      const locked = await DemoRunModel.query(trx).forOrg(principal.orgId).findById(run.id).forUpdate();
      if (!locked || locked.status !== 'failed' || locked.attempts !== run.attempts)
        throw conflict('retry_not_allowed', 'The demo changed meanwhile', { reason: 'not_failed' });
      const now = this.d.clock();
      const patch: Partial<DemoRunModel> = {
        attempts: run.attempts + 1,
        started_at: now,
        completed_at: null,
        error_code: null,
        error_detail: null,
        outcome: null,
      };
      if (!chosen)
        Object.assign(patch, {
          status: 'failed',
          phase: 'failed',
          completed_at: now,
          error_code: 'no_case',
          error_detail: 'The repository gave no case for the demo.',
        });
      else {
        const ticket = await this.openTicket(trx, principal.orgId, ws.id, chosen, locale);
        Object.assign(patch, {
          status: 'running',
          phase: 'reading_code',
          case_kind: chosen.source.kind,
          source: chosen.source,
          email: chosen.email,
          ticket_id: ticket.id,
          ticket_ids: [...run.ticket_ids, ticket.id],
        });
      }
      const after = await DemoRunModel.query(trx).forOrg(principal.orgId).patchAndFetchById(run.id, patch);
      await this.d.audit.record(trx, {
        actor,
        action: 'onboarding.demo_retried',
        target: { type: 'demo_run', id: run.id },
        workspaceId: run.workspace_id,
        changes: {
          attempts: { before: run.attempts, after: after.attempts },
          status: { before: run.status, after: after.status },
        },
        metadata: { previous_error: run.error_code },
      });
      return after;
    });
  }

  private async openTicket(
    trx: Knex,
    orgId: string,
    workspaceId: string,
    chosen: NonNullable<Awaited<ReturnType<typeof chooseCase>>>,
    locale: string,
  ) {
    const e = chosen.email;
    return this.d.tickets.createTicket(trx, {
      orgId,
      workspaceId,
      origin: 'email',
      subject: e.subject,
      customerEmail: e.from_address,
      customerName: e.from_name,
      language: locale,
      isDemo: true,
      errorGroupId: chosen.errorGroupId,
      message: {
        from: e.from_address,
        fromName: e.from_name,
        subject: e.subject,
        bodyText: e.body,
        receivedAt: new Date(e.received_at),
      },
    });
  }

  retryOf(run: DemoRunModel): { allowed: boolean; reason: string | null } {
    if (run.first_diagnosis_at) return { allowed: false, reason: 'diagnosed' };
    if (run.status !== 'failed') return { allowed: false, reason: 'not_failed' };
    if (run.mode === 'managed' && Number(run.cost_usd) >= Number(run.cap_usd) && Number(run.cap_usd) > 0)
      return { allowed: false, reason: 'budget_exhausted' };
    if (run.attempts >= this.d.options.demoMaxAttempts) return { allowed: false, reason: 'max_attempts' };
    return { allowed: true, reason: null };
  }

  /** Brings the run in line with its ticket's jobs and stores what changed (bus consumer and reads). */
  async sync(run: DemoRunModel, trx?: Knex): Promise<DemoRunModel> {
    const db = trx ?? this.d.db;
    const p = await readProgress(this.d, db, run);
    const next = deriveRun(run, p, this.d.clock(), this.d.options);
    const changed = (Object.keys(next) as Array<keyof typeof next>).some(
      (k) => String(next[k] ?? '') !== String(run[k] instanceof Date ? (run[k] as Date).toISOString() : (run[k] ?? '')),
    );
    if (!changed) return run;
    return DemoRunModel.query(db).forOrg(run.org_id).patchAndFetchById(run.id, next);
  }

  /** The DemoRun answer (syncs first). */
  async json(run: DemoRunModel) {
    const synced = await this.sync(run);
    const p = await readProgress(this.d, this.d.db, synced);
    let ticket: DemoTicket | null = null;
    let statusUrl: string | null = null;
    if (synced.ticket_id) {
      const t = await this.d.tickets.mustGet(this.d.db, synced.org_id, synced.ticket_id).catch(() => null);
      if (t) {
        const detail = await this.d.tickets.detail(synced.org_id, t.id);
        ticket = { id: t.id, state: t.state, public_state: String(detail.public_state) };
        statusUrl = this.d.tickets.statusUrl(t);
      }
    }
    return demoRunView(synced, p, ticket, statusUrl, this.retryOf(synced));
  }

  /** The bus: a job of a demo ticket moved; the run follows (in the consumer's transaction). */
  async onJobEvent(trx: Knex, orgId: string, ticketId: string): Promise<void> {
    const run = await DemoRunModel.query(trx)
      .forOrg(orgId)
      .whereRaw('ticket_ids @> ?::jsonb', [JSON.stringify([ticketId])])
      .limit(1)
      .first();
    if (run) await this.sync(run, trx);
  }
}
