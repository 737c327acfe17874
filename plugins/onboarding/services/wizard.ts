import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, httpError } from '../../../core/http/errors.js';
import { OnboardingState, type AgentChoice, type StepId, type StepState } from '../models.js';
import type { OnboardingDeps, RepositoryRow, WorkspaceLike } from './deps.js';
import type { DemoService } from './demo.js';
import type { ExecutionInput, ExecutionService } from './execution.js';
import { onboardingRepository } from './serialize.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { iso } from '../../../core/http/times.js';

export const STEPS: readonly StepId[] = ['repository', 'channels', 'agent', 'logs'];
/** Steps that may be skipped; the repository and the agent are needed to finish. */
const OPTIONAL = new Set<StepId>(['channels', 'logs']);

export interface AgentInput extends ExecutionInput {
  answer: string;
  detail?: { codex_auth?: string; claude_auth?: string; ide_agent?: string };
}

/**
 * The wizard of an organization: workspace choice, the four steps, the repository step (the
 * onboarding pull request through the codehost plugin), the agent step (execution settings with
 * the rules), the demo section, and the end. Every change is audited.
 */
export class WizardService {
  constructor(
    private readonly d: OnboardingDeps,
    private readonly execution: ExecutionService,
    private readonly demo: DemoService,
  ) {}

  /** The state, created on first read with the organization's first workspace. */
  /**
   * The organization's wizard state. Not stored until something changes (`change` inserts it), so a
   * read or a refused request writes nothing; until then it starts on the oldest open workspace.
   */
  async state(orgId: string, trx?: Knex): Promise<OnboardingState> {
    const db = trx ?? this.d.db;
    const found = await OnboardingState.query(db).forOrg(orgId).limit(1).first();
    if (found) return found;
    return Object.assign(new OnboardingState(), {
      org_id: orgId,
      ...(await this.initial(db, orgId)),
      repository_id: null,
      demo_consent: null,
      demo_consent_at: null,
      completed_at: null,
    });
  }

  private async initial(db: Knex, orgId: string): Promise<Pick<OnboardingState, 'workspace_id' | 'steps' | 'agent'>> {
    const ws = (await db('workspaces')
      .where({ org_id: orgId })
      .whereNull('archived_at')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('id')
      .first()) as { id: string } | undefined;
    return { workspace_id: ws?.id ?? null, steps: {}, agent: null };
  }

  async chooseWorkspace(actor: SignedInActor, workspaceId: string) {
    const principal = actor.principal;
    const ws = await this.d.workspaces.open(principal, workspaceId);
    if (ws.archived_at) throw conflict('workspace_archived', 'An archived workspace cannot be set up');
    await this.change(actor, 'onboarding.workspace_chosen', (s) =>
      s.workspace_id === ws.id
        ? null
        : { workspace_id: ws.id, repository_id: null, steps: {}, agent: null, completed_at: null },
    );
    return this.view(principal);
  }

  /** Step 1: the repository of the chosen workspace; opens (or updates) its onboarding pull request. */
  async chooseRepository(actor: SignedInActor, repositoryId: string) {
    const principal = actor.principal;
    const s = await this.state(principal.orgId);
    if (!s.workspace_id) throw conflict('workspace_required', 'Choose the workspace first');
    if (!this.d.repositories) throw httpError(422, 'codehost_unavailable', 'The code host is not configured');
    const repo = await this.d.repositories.load(principal, repositoryId);
    if (repo.workspace_id !== s.workspace_id)
      throw httpError(422, 'repository_not_in_workspace', 'The repository is connected to another workspace', {
        workspace_id: repo.workspace_id,
      });
    const after = await this.d.repositories.openOnboardingPr(actor, repo.id);
    const opened = !after.onboarding_pr?.error && after.onboarding_pr?.number != null;
    await this.change(actor, 'onboarding.repository_chosen', (st) => ({
      repository_id: repo.id,
      steps: opened
        ? { ...st.steps, repository: { status: 'done', completed_at: this.d.clock().toISOString() } }
        : st.steps,
    }));
    return this.view(principal);
  }

  /** The agent step: execution settings through the same path as PUT execution, then the answer. */
  async chooseAgent(actor: SignedInActor, input: AgentInput) {
    const principal = actor.principal;
    const s = await this.state(principal.orgId);
    if (!s.workspace_id) throw conflict('workspace_required', 'Choose the workspace first');
    const settings = await this.execution.put(actor, s.workspace_id, input);
    const agent: AgentChoice = {
      answer: input.answer,
      detail: { ...(input.detail ?? {}) },
      mode: input.mode,
      agent: input.agent,
      auth: input.auth,
      transport: input.transport ?? null,
      credential_pending:
        settings.requirements.some((r) => r === 'agent_key' || r === 'agent_login_file' || r === 'cloud_auth') ||
        (input.credential_later === true && !input.agent_key && !input.codex_auth_json && !input.cloud_auth),
      confirmed_at: this.d.clock().toISOString(),
    };
    await this.change(actor, 'onboarding.agent_confirmed', (st) => ({
      agent,
      steps: { ...st.steps, agent: { status: 'done', completed_at: agent.confirmed_at } },
    }));
    return this.view(principal);
  }

  async step(actor: SignedInActor, step: StepId, action: 'complete' | 'skip' | 'reopen') {
    const principal = actor.principal;
    const s = await this.state(principal.orgId);
    const avail = this.availability(s);
    if (action !== 'reopen' && !avail[step])
      throw conflict('step_unavailable', `The ${step} step is not available yet`, { step });
    if (action === 'skip' && !OPTIONAL.has(step))
      throw conflict('step_not_optional', `The ${step} step cannot be skipped`, { step });
    if (action === 'complete' && step === 'repository' && !s.repository_id)
      throw conflict('repository_required', 'Choose the repository first (POST /v1/onboarding/repository)');
    if (action === 'complete' && step === 'agent' && !s.agent)
      throw conflict('agent_required', 'Choose the agent first (POST /v1/onboarding/agent)');
    const next: StepState =
      action === 'reopen'
        ? { status: 'todo', completed_at: null }
        : { status: action === 'complete' ? 'done' : 'skipped', completed_at: this.d.clock().toISOString() };
    await this.change(
      actor,
      `onboarding.step_${action === 'complete' ? 'completed' : action === 'skip' ? 'skipped' : 'reopened'}`,
      (st) => ({
        steps: { ...st.steps, [step]: next },
        ...(action === 'reopen' ? { completed_at: null } : {}),
      }),
    );
    return this.view(principal);
  }

  async complete(actor: SignedInActor) {
    const principal = actor.principal;
    const s = await this.state(principal.orgId);
    const missing = STEPS.filter((id) => !OPTIONAL.has(id) && s.steps[id]?.status !== 'done');
    if (!s.workspace_id || missing.length)
      throw conflict('onboarding_incomplete', 'Finish the required steps first', { steps: missing });
    await this.change(actor, 'onboarding.completed', (st) =>
      st.completed_at
        ? null
        : {
            completed_at: this.d.clock(),
            steps: Object.fromEntries(
              STEPS.map((id) => [
                id,
                st.steps[id]?.status && st.steps[id].status !== 'todo'
                  ? st.steps[id]
                  : { status: 'skipped', completed_at: this.d.clock().toISOString() },
              ]),
            ),
          },
    );
    return this.view(principal);
  }

  async consent(actor: SignedInActor, consent: 'granted' | 'refused') {
    const principal = actor.principal;
    await this.change(actor, 'onboarding.demo_consent', () => ({
      demo_consent: consent,
      demo_consent_at: this.d.clock(),
    }));
    if (consent === 'granted') {
      const view = await this.view(principal);
      if (view.demo.can_start) return this.startDemo(actor);
    }
    return this.view(principal);
  }

  async startDemo(actor: SignedInActor) {
    const principal = actor.principal;
    const view = await this.view(principal);
    if (!view.demo.can_start)
      throw conflict(view.demo.start_blocker ?? 'demo_unavailable', demoBlockerText(view.demo.start_blocker), {
        blocker: view.demo.start_blocker,
      });
    const { ws, repo } = await this.target(principal);
    await this.demo.start(actor, ws, repo, 'managed');
    return this.view(principal);
  }

  async startWorkspaceDemo(actor: SignedInActor) {
    const principal = actor.principal;
    const view = await this.view(principal);
    if (!view.demo.workspace_demo.available)
      throw conflict(
        view.demo.workspace_demo.blocker ?? 'demo_unavailable',
        demoBlockerText(view.demo.workspace_demo.blocker),
        { blocker: view.demo.workspace_demo.blocker },
      );
    const { ws, repo } = await this.target(principal);
    await this.demo.start(actor, ws, repo, 'workspace');
    return this.view(principal);
  }

  private async target(principal: Principal): Promise<{ ws: WorkspaceLike; repo: RepositoryRow }> {
    const s = await this.state(principal.orgId);
    const ws = await this.d.workspaces.get(principal.orgId, s.workspace_id!);
    const repoId = s.repository_id ?? (await this.execution.repositories(principal, ws.id))[0]?.id;
    return { ws, repo: await this.d.repositories!.loadForOrg(principal.orgId, repoId) };
  }

  availability(s: OnboardingState): Record<StepId, boolean> {
    const hasWs = !!s.workspace_id;
    const repoDone = s.steps.repository?.status === 'done';
    return {
      repository: hasWs,
      channels: hasWs,
      agent: hasWs && repoDone,
      logs: hasWs && s.steps.agent?.status === 'done',
    };
  }

  /** The Onboarding answer. */
  async view(principal: Principal) {
    const s = await this.state(principal.orgId);
    const ws = s.workspace_id ? await this.d.workspaces.get(principal.orgId, s.workspace_id).catch(() => null) : null;
    const repos = ws ? await this.execution.repositories(principal, ws.id) : [];
    const repo = repos.find((r) => r.id === s.repository_id) ?? null;
    const creds = ws ? await this.execution.credentials(principal.orgId, ws.id) : [];
    const avail = this.availability(s);
    const steps = STEPS.map((id) => ({
      id,
      status: s.steps[id]?.status ?? 'todo',
      completed_at: s.steps[id]?.completed_at ?? null,
      available: avail[id],
      optional: OPTIONAL.has(id),
    }));
    const current = s.completed_at ? 'done' : (steps.find((st) => st.status === 'todo')?.id ?? 'done');
    const managedRun = await this.demo.managedRun(principal.orgId);
    const latest = await this.demo.latest(principal.orgId);
    const used = !!managedRun;
    // The managed demo clones the repository into the sandbox: consent unless the workspace already runs there.
    const runsManaged = !!s.agent && ws?.execution_mode === 'managed';
    const consentRequired = !runsManaged;
    const consentReason = consentRequired ? (s.agent ? 'runs_elsewhere' : 'not_chosen') : null;
    const blocker = !ws
      ? 'workspace_required'
      : repos.length === 0
        ? 'repository_required'
        : used
          ? 'demo_already_used'
          : consentRequired && s.demo_consent !== 'granted'
            ? s.demo_consent === 'refused'
              ? 'consent_refused'
              : 'consent_required'
            : null;
    const activeWsDemo =
      latest && latest.mode === 'workspace' && latest.status !== 'completed' && latest.status !== 'failed';
    const wsBlocker = !ws
      ? 'workspace_required'
      : repos.length === 0
        ? 'repository_required'
        : !s.agent
          ? 'agent_required'
          : activeWsDemo
            ? 'demo_running'
            : null;
    let execFile: Awaited<ReturnType<ExecutionService['settings']>> | null = null;
    if (ws) execFile = await this.execution.settings(principal, ws);
    return {
      workspace: ws
        ? {
            id: ws.id,
            name: ws.name,
            client_name: ws.client_name,
            slug: ws.slug,
            locale: ws.locale === 'it' ? 'it' : 'en',
            execution_mode: ws.execution_mode,
            agent_id: ws.agent_id,
            auth_method: ws.auth_method,
            runner_transport: ws.runner_transport,
            inbound_address: ws.inbound_address,
          }
        : null,
      repository: repo ? onboardingRepository(repo) : null,
      current,
      steps,
      agent: s.agent ? { ...s.agent, detail: s.agent.detail ?? {} } : null,
      requirements: execFile?.requirements ?? ['workspace'],
      credentials: creds,
      demo: {
        consent: s.demo_consent,
        consent_at: iso(s.demo_consent_at),
        consent_required: consentRequired,
        consent_reason: consentReason,
        used,
        can_start: blocker === null,
        start_blocker: blocker,
        workspace_demo: { available: wsBlocker === null, blocker: wsBlocker },
        cap_usd: this.d.options.demoCapUsd,
        run: latest ? await this.demo.json(latest) : null,
      },
    };
  }

  /** Applies a patch to the state under a row lock and audits what changed. */
  private async change(
    actor: SignedInActor,
    action: string,
    patchOf: (s: OnboardingState) => Partial<OnboardingState> | null,
  ): Promise<void> {
    const principal = actor.principal;
    await this.d.db.transaction(async (trx) => {
      const locked = () => OnboardingState.query(trx).forOrg(principal.orgId).forUpdate().limit(1).first();
      let s = await locked();
      // The first change stores the state: what it held until then counts as changed from nothing.
      let stored: Record<string, unknown> | null = null;
      if (!s) {
        const initial = await this.initial(trx, principal.orgId);
        await OnboardingState.query(trx)
          .insert({ org_id: principal.orgId, ...initial })
          .onConflict('org_id')
          .ignore();
        s = (await locked())!;
        stored = { workspace_id: s.workspace_id };
      }
      const patch = patchOf(s);
      const changed = patch ?? stored;
      if (!changed) return;
      const plain = (v: unknown) => (v instanceof Date ? v.toISOString() : v);
      const before = Object.fromEntries(
        Object.keys(changed).map((k) => [k, stored ? null : plain((s as unknown as Record<string, unknown>)[k])]),
      );
      const after = Object.fromEntries(Object.entries(changed).map(([k, v]) => [k, plain(v)]));
      if (patch) await OnboardingState.query(trx).forOrg(principal.orgId).patch(patch).where('id', s.id);
      await this.d.audit.record(trx, {
        actor,
        action,
        target: { type: 'onboarding', id: s.id },
        workspaceId: (patch?.workspace_id ?? s.workspace_id) || null,
        changes: diffFields(before, after),
      });
    });
  }
}

function demoBlockerText(blocker: string | null): string {
  switch (blocker) {
    case 'demo_already_used':
      return 'The demo runs once per organization';
    case 'consent_required':
      return 'Consent to clone the repository in the managed sandbox first';
    case 'consent_refused':
      return 'Consent to clone the repository was refused';
    case 'workspace_required':
      return 'Choose the workspace first';
    case 'repository_required':
      return 'Connect a repository to the workspace first';
    case 'agent_required':
      return 'Choose the agent first';
    case 'demo_running':
      return 'A workspace demo is still running';
    default:
      return 'The demo cannot start';
  }
}
