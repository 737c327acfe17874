import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { authorize } from '../../../core/http/auth.js';
import { conflict, notFound, unauthenticated } from '../../../core/http/errors.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import { Runner, RunnerJob, RunnerJobToken } from '../models/index.js';
import type { AgentCredentials } from './credentials.js';
import { leaseOwner, RUNNER_EXECUTOR, type JobRow, type RunnerDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';

export interface RunnerOut {
  id: string;
  org_id: string;
  workspace_id: string;
  name: string;
  token: string | null;
  token_last4: string;
  runner_transport: string | null;
  created_at: string;
  rotated_at: string | null;
  revoked_at: string | null;
  last_seen_at: string | null;
}

export interface ClaimOut {
  job_id: string;
  kind: 'diagnose' | 'fix';
  ticket_id: string;
  workspace_id: string;
  attempt: number;
  job_token: string;
  agent_token: string;
  expires_at: string;
  lease_expires_at: string | null;
}

/** Runner tokens: `pw_runner_…`, job tokens `pw_job_…`, agent tokens `pw_agent_…` (the job-event mask knows the `pw_*_` shape). */
export const TOKEN_PREFIX = { runner: 'pw_runner', job: 'pw_job', agent: 'pw_agent' } as const;

/**
 * Registered runners of a workspace and the hand-out of its queued runner jobs: a claim takes the
 * job's lease in the fixes job queue (owner `runner:<id>`) and answers two fresh per-job tokens.
 */
export class Runners {
  constructor(
    private readonly d: RunnerDeps,
    private readonly credentials: AgentCredentials,
  ) {}

  out(r: Runner, token: string | null, transport: string | null): RunnerOut {
    return {
      id: r.id,
      org_id: r.org_id,
      workspace_id: r.workspace_id,
      name: r.name,
      token,
      token_last4: r.token_last4,
      runner_transport: transport,
      created_at: iso(r.created_at),
      rotated_at: iso(r.rotated_at),
      revoked_at: iso(r.revoked_at),
      last_seen_at: iso(r.last_seen_at),
    };
  }

  /**
   * Registers a runner (201 with its token, shown once); the same name again rotates its token
   * (the old one stops at once); `revoke` ends it. `agent_login` stores the workspace's agent
   * login file (encrypted) for the jobs' agent-credential lock.
   */
  async register(
    actor: SignedInActor,
    input: { workspace_id: string; name: string; revoke?: boolean; agent_login?: string | null },
  ): Promise<{ created: boolean; runner: RunnerOut }> {
    const p = actor.principal;
    const ws = await this.d.workspaces.get(p.orgId, input.workspace_id);
    authorize(p, { workspaceId: ws.id });
    return this.d.db.transaction(async (trx) => {
      const existing = await Runner.query(trx)
        .forOrg(p.orgId)
        .where({ workspace_id: ws.id, name: input.name })
        .forUpdate()
        .limit(1)
        .first();
      const audit = (
        action: string,
        r: Runner,
        changes: Record<string, { before: unknown; after: unknown }>,
        metadata: Record<string, unknown> = {},
      ) =>
        this.d.audit.record(trx, {
          actor,
          action,
          target: { type: 'runner', id: r.id },
          workspaceId: ws.id,
          changes,
          metadata: { name: r.name, ...metadata },
        });
      if (input.agent_login) await this.credentials.store(trx, p.orgId, ws.id, input.agent_login);
      if (input.revoke) {
        if (!existing) throw notFound('runner');
        if (existing.revoked_at) return { created: false, runner: this.out(existing, null, ws.runner_transport) };
        const revoked = await Runner.query(trx)
          .forOrg(p.orgId)
          .patchAndFetchById(existing.id, { revoked_at: new Date() });
        await RunnerJobToken.query(trx)
          .forOrg(p.orgId)
          .patch({ revoked_at: new Date() })
          .where({ runner_id: existing.id })
          .whereNull('revoked_at');
        await audit(
          'runner.revoked',
          revoked,
          diffFields({ revoked_at: null }, { revoked_at: iso(revoked.revoked_at) }),
        );
        return { created: false, runner: this.out(revoked, null, ws.runner_transport) };
      }
      const { token, hash } = newToken(TOKEN_PREFIX.runner);
      if (existing) {
        const rotated = await Runner.query(trx)
          .forOrg(p.orgId)
          .patchAndFetchById(existing.id, {
            token_hash: hash,
            token_last4: token.slice(-4),
            rotated_at: new Date(),
            revoked_at: null,
          });
        await audit(
          'runner.token_rotated',
          rotated,
          diffFields(
            { token_last4: existing.token_last4, revoked_at: iso(existing.revoked_at) },
            { token_last4: rotated.token_last4, revoked_at: null },
          ),
          { agent_login_stored: !!input.agent_login },
        );
        return { created: false, runner: this.out(rotated, token, ws.runner_transport) };
      }
      const created = await Runner.query(trx)
        .insert({
          id: newId(Runner.idPrefix),
          org_id: p.orgId,
          workspace_id: ws.id,
          name: input.name,
          token_hash: hash,
          token_last4: token.slice(-4),
          created_by: p.userId,
        })
        .returning('*');
      await audit(
        'runner.registered',
        created,
        diffFields({}, { name: created.name, token_last4: created.token_last4 }),
        { agent_login_stored: !!input.agent_login },
      );
      return { created: true, runner: this.out(created, token, ws.runner_transport) };
    });
  }

  /**
   * Revokes the live runners of an archived workspace (or of a closed organization) and their
   * job tokens, in the transaction of the event; audited with the system as actor.
   */
  async revokeAll(trx: Knex, orgId: string, workspaceId: string | null, reason: string): Promise<number> {
    const q = Runner.query(trx).forOrg(orgId).whereNull('revoked_at');
    if (workspaceId) q.where({ workspace_id: workspaceId });
    const live = await q;
    for (const r of live) {
      const revoked = await Runner.query(trx).forOrg(orgId).patchAndFetchById(r.id, { revoked_at: new Date() });
      await RunnerJobToken.query(trx)
        .forOrg(orgId)
        .patch({ revoked_at: new Date() })
        .where({ runner_id: r.id })
        .whereNull('revoked_at');
      await this.d.audit.record(trx, {
        orgId,
        actor: systemActor('runner', orgId),
        action: 'runner.revoked',
        target: { type: 'runner', id: r.id },
        workspaceId: r.workspace_id,
        changes: diffFields({ revoked_at: null }, { revoked_at: iso(revoked.revoked_at) }),
        metadata: { name: r.name, reason },
      });
    }
    return live.length;
  }

  /** The live runner of a `Bearer pw_runner_…` header; 401 otherwise. */
  async authenticate(header: unknown): Promise<Runner> {
    const m = typeof header === 'string' ? /^Bearer\s+(pw_runner_[A-Za-z0-9_-]+)\s*$/i.exec(header) : null;
    if (!m) throw unauthenticated('A runner token is required (Authorization: Bearer pw_runner_…)');
    const runner = await Runner.query(this.d.db)
      .acrossOrgs('runner token lookup')
      .where({ token_hash: hashToken(m[1]) })
      .limit(1)
      .first();
    if (!runner || runner.revoked_at) throw unauthenticated('This runner token is not valid');
    return runner;
  }

  /**
   * Hands the runner the next queued job of its workspace (or the job it names, e.g. the
   * next_job_id of a result) with a lease; undefined when nothing is waiting.
   */
  async claim(runner: Runner, input: { job_id?: string }): Promise<ClaimOut | undefined> {
    await this.d.rateLimiter.consume(`runner-claim:${runner.id}`, this.d.options.claimsPerMinute, 60_000);
    await Runner.query(this.d.db).forOrg(runner.org_id).patch({ last_seen_at: new Date() }).where('id', runner.id);
    const owner = leaseOwner(runner.id);
    const only = {
      orgId: runner.org_id,
      workspaceId: runner.workspace_id,
      ...(input.job_id ? { jobId: input.job_id } : {}),
    };
    const job = await this.d.jobs.claim(owner, [RUNNER_EXECUTOR], only);
    if (!job) {
      if (!input.job_id) return undefined;
      const named = (await this.d
        .db('fix_jobs')
        .where({
          id: input.job_id,
          org_id: runner.org_id,
          workspace_id: runner.workspace_id,
          executor: RUNNER_EXECUTOR,
        })
        .select('status')
        .first()) as { status: string } | undefined;
      if (!named) throw notFound('job');
      throw conflict('job_not_claimable', `The job is ${named.status} and cannot be claimed now`, {
        status: named.status,
      });
    }
    return this.d.db.transaction(async (trx) => {
      // A new claim ends the tokens of the job's earlier claims (a lease that ran out).
      await RunnerJobToken.query(trx)
        .forOrg(job.org_id)
        .patch({ revoked_at: new Date() })
        .where({ job_id: job.id })
        .whereNull('revoked_at');
      const seen = await RunnerJob.query(trx).forOrg(job.org_id).where({ job_id: job.id }).limit(1).first();
      if (seen)
        await RunnerJob.query(trx)
          .forOrg(job.org_id)
          .patch({ runner_id: runner.id, attempt: job.attempts, claimed_at: new Date(), started_at: null })
          .where('id', seen.id);
      else
        await RunnerJob.query(trx).insert({
          id: newId(RunnerJob.idPrefix),
          org_id: job.org_id,
          job_id: job.id,
          runner_id: runner.id,
          attempt: job.attempts,
          claimed_at: new Date(),
        });
      const tokens = await this.issueTokens(trx, job, runner.id);
      await this.d.jobs.event(trx, job, {
        level: 'info',
        type: 'runner_claimed',
        message: `claimed by runner ${runner.name}`,
        data: { runner_id: runner.id, attempt: job.attempts },
      });
      return {
        job_id: job.id,
        kind: job.kind,
        ticket_id: job.ticket_id,
        workspace_id: job.workspace_id,
        attempt: job.attempts,
        job_token: tokens.job_token,
        agent_token: tokens.agent_token,
        expires_at: tokens.expires_at,
        lease_expires_at: iso(job.lease_expires_at),
      };
    });
  }

  /** A fresh job token and agent token for the current claim of a job. */
  async issueTokens(
    trx: Knex,
    job: Pick<JobRow, 'id' | 'org_id' | 'attempts'>,
    runnerId: string,
  ): Promise<{ job_token: string; agent_token: string; expires_at: string }> {
    const expires = new Date(Date.now() + this.d.options.jobTokenTtlMs);
    const jobTok = newToken(TOKEN_PREFIX.job);
    const agentTok = newToken(TOKEN_PREFIX.agent);
    for (const [kind, t] of [
      ['job', jobTok],
      ['agent', agentTok],
    ] as const) {
      await RunnerJobToken.query(trx).insert({
        id: newId(RunnerJobToken.idPrefix),
        org_id: job.org_id,
        job_id: job.id,
        runner_id: runnerId,
        attempt: job.attempts,
        kind,
        token_hash: t.hash,
        expires_at: expires,
      });
    }
    return { job_token: jobTok.token, agent_token: agentTok.token, expires_at: expires.toISOString() };
  }
}
