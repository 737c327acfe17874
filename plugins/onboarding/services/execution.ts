import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { newId } from '../../../core/data/ids.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { last4 } from '../../../core/security/secret-box.js';
import { OnboardingCredential, OnboardingExecution } from '../models.js';
import { assertAllowed } from './rules.js';
import { type OnboardingDeps, type OnboardingRepositoryJson, type WorkspaceLike } from './deps.js';
import { credentialJson, onboardingRepository, publicCloudAuth } from './serialize.js';
import type { SignedInActor } from '../../../core/contracts/index.js';

export interface ExecutionInput {
  mode: string;
  agent: string;
  auth: string;
  transport?: string | null;
  agent_key?: string;
  codex_auth_json?: string;
  cloud_auth?: Record<string, unknown>;
  runs_on?: string[];
  credential_later?: boolean;
}

export const sealContext = (id: string) => `onboarding-credential:${id}`;
/** The credential kind the agent key becomes (the spec's credential kinds). */
const keyKind = (agent: string) => (agent === 'agent_2' ? 'model_key_b' : 'model_key_a');
const fingerprint4 = (text: string) => createHash('sha256').update(text).digest('hex').slice(-4);

/**
 * Execution settings of a workspace: the four choices live on the workspace (stored through the
 * workspaces plugin's service, so PATCH /v1/workspaces and this section share one copy), the
 * secrets become write-only credentials, the runner labels and the public part of cloud auth are
 * kept here; the preview shows the files the runner needs (the codehost plugin's onboarding files).
 */
export class ExecutionService {
  constructor(private readonly d: OnboardingDeps) {}

  async get(principal: Principal, workspaceId: string) {
    const ws = await this.d.workspaces.open(principal, workspaceId);
    return this.settings(principal, ws);
  }

  /** PUT execution (and the agent step): rules first, then credentials, the workspace, the CI secret. */
  async put(actor: SignedInActor, workspaceId: string, input: ExecutionInput) {
    const principal = actor.principal;
    const ws = await this.d.workspaces.open(principal, workspaceId);
    if (ws.archived_at) throw conflict('workspace_archived', 'An archived workspace cannot be changed');
    const transport = input.transport ?? null;
    assertAllowed({ mode: input.mode, agent: input.agent, auth: input.auth, transport }, principal.locale);
    if (input.codex_auth_json !== undefined) {
      try {
        JSON.parse(input.codex_auth_json);
      } catch {
        throw httpError(400, 'invalid_request', 'codex_auth_json must be the content of the agent login file (JSON)', {
          errors: [{ path: 'payload.codex_auth_json', message: 'is not JSON' }],
        });
      }
    }
    const repos = await this.repositories(principal, ws.id);
    const ciRepo = input.agent_key && input.mode === 'runner' && transport === 'github_actions' ? repos[0] : undefined;

    const created: OnboardingCredential[] = [];
    await this.d.db.transaction(async (trx) => {
      const add = async (kind: string, plain: string, shown: string) => {
        const id = newId(OnboardingCredential.idPrefix);
        const row = await OnboardingCredential.query(trx)
          .insert({
            id,
            org_id: principal.orgId,
            workspace_id: ws.id,
            kind,
            sealed: this.d.secretBox.encrypt(plain, sealContext(id)),
            last4: shown,
          })
          .returning('*');
        await this.d.audit.record(trx, {
          actor,
          action: 'credential.created',
          target: { type: 'credential', id },
          workspaceId: ws.id,
          changes: { credential: { before: null, after: 'set' } },
          metadata: { kind, last4: shown },
        });
        created.push(row);
      };
      if (input.agent_key) await add(keyKind(input.agent), input.agent_key, last4(input.agent_key));
      if (input.codex_auth_json !== undefined)
        await add('agent_login_file', input.codex_auth_json, fingerprint4(input.codex_auth_json));
      if (input.cloud_auth && Object.keys(input.cloud_auth).length) {
        const text = JSON.stringify(input.cloud_auth);
        await add(
          input.auth === 'cloud_b' ? 'cloud_b' : input.auth === 'cloud_a' ? 'cloud_a' : 'cloud_credentials',
          text,
          fingerprint4(text),
        );
      }
      const before = await OnboardingExecution.query(trx)
        .forOrg(principal.orgId)
        .where({ workspace_id: ws.id })
        .limit(1)
        .first();
      const next = {
        runs_on: input.runs_on ?? before?.runs_on ?? [],
        cloud_auth: input.cloud_auth ? publicCloudAuth(input.cloud_auth) : (before?.cloud_auth ?? {}),
        credential_later: input.credential_later ?? false,
      };
      if (before) await OnboardingExecution.query(trx).forOrg(principal.orgId).patch(next).where('id', before.id);
      else await OnboardingExecution.query(trx).insert({ org_id: principal.orgId, workspace_id: ws.id, ...next });
      const changes = diffFields(
        {
          runs_on: before?.runs_on ?? [],
          cloud_auth: before?.cloud_auth ?? {},
          credential_later: before?.credential_later ?? false,
        },
        next,
      );
      if (Object.keys(changes).length) {
        await this.d.audit.record(trx, {
          actor,
          action: 'onboarding.execution_updated',
          target: { type: 'workspace', id: ws.id },
          workspaceId: ws.id,
          changes,
        });
      }
    });

    const credentialId = await this.primaryCredential(principal.orgId, ws, input.auth, created);
    await this.d.workspaces.update(
      principal,
      ws.id,
      {
        execution_mode: input.mode,
        agent_id: input.agent,
        auth_method: input.auth,
        runner_transport: transport,
        agent_config: { credential_id: credentialId },
      },
      actor,
    );
    // The key goes to the repository's CI secret (the codehost plugin's agent-key operation).
    if (ciRepo && input.agent_key && this.d.repositories)
      await this.d.repositories.setAgentKey(actor, ciRepo.id, input.agent_key);
    return this.settings(principal, await this.d.workspaces.get(principal.orgId, ws.id));
  }

  /** DELETE a credential: only one no workspace uses (409 credential_in_use). Audited. */
  async deleteCredential(actor: SignedInActor, workspaceId: string, credentialId: string) {
    const principal = actor.principal;
    const ws = await this.d.workspaces.open(principal, workspaceId);
    await this.d.db.transaction(async (trx) => {
      const cred = await OnboardingCredential.query(trx)
        .forOrg(principal.orgId)
        .where({ id: credentialId, workspace_id: ws.id })
        .forUpdate()
        .limit(1)
        .first();
      if (!cred) throw notFound('credential');
      const users = await this.usersOf(trx, principal.orgId, [cred.id]);
      if (users.length)
        throw conflict('credential_in_use', 'A workspace still uses this credential; choose another one first', {
          workspace_ids: users.map((u) => u.workspace_id),
        });
      await OnboardingCredential.query(trx).forOrg(principal.orgId).delete().where('id', cred.id);
      await this.d.audit.record(trx, {
        actor,
        action: 'credential.deleted',
        target: { type: 'credential', id: cred.id },
        workspaceId: ws.id,
        changes: { credential: { before: 'set', after: null } },
        metadata: { kind: cred.kind, last4: cred.last4 },
      });
    });
    return this.settings(principal, ws);
  }

  /** Credential[] of a workspace with in_use. */
  async credentials(orgId: string, workspaceId: string, trx?: Knex) {
    const db = trx ?? this.d.db;
    const rows = await OnboardingCredential.query(db)
      .forOrg(orgId)
      .where({ workspace_id: workspaceId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    const used = new Set(
      (
        await this.usersOf(
          db,
          orgId,
          rows.map((r) => r.id),
        )
      ).map((u) => u.credential_id),
    );
    return rows.map((r) => credentialJson(r, used));
  }

  async repositories(principal: Principal, workspaceId: string): Promise<OnboardingRepositoryJson[]> {
    if (!this.d.repositories) return [];
    try {
      const page = await this.d.repositories.list(principal, { workspace_id: workspaceId, limit: 200 });
      return page.items;
    } catch (err) {
      // A member outside the workspace sees the wizard without its repositories.
      if ((err as { output?: { statusCode?: number } }).output?.statusCode === 403) return [];
      throw err;
    }
  }

  /** What the workspace still needs before jobs can run (see docs/onboarding.md). */
  requirements(
    ws: WorkspaceLike,
    repos: OnboardingRepositoryJson[],
    creds: Array<{ kind: string }>,
    credentialLater: boolean,
  ): string[] {
    const out: string[] = [];
    const kinds = new Set(creds.map((c) => c.kind));
    if (repos.length === 0) out.push('repository');
    if (ws.execution_mode === 'runner' && ws.runner_transport === 'github_actions') {
      if (ws.auth_method === 'api-key' && !repos.some((r) => r.agent_key.last4) && !credentialLater)
        out.push('agent_key');
      if (!repos.some((r) => r.onboarding_pr.status === 'open' || r.onboarding_pr.status === 'merged'))
        out.push('onboarding_pr');
    } else if (ws.execution_mode !== 'mcp' && ws.agent_id !== 'builtin' && !credentialLater) {
      if (ws.auth_method === 'api-key' && !kinds.has('model_key_a') && !kinds.has('model_key_b')) out.push('agent_key');
      if (ws.auth_method === 'account_login' && !kinds.has('agent_login_file')) out.push('agent_login_file');
      if ((ws.auth_method === 'cloud_a' || ws.auth_method === 'cloud_b') && !kinds.has(ws.auth_method))
        out.push('cloud_auth');
    }
    if (ws.execution_mode === 'mcp') out.push('mcp_client');
    return out;
  }

  async allowedModes(orgId: string): Promise<string[]> {
    const org = (await this.d.db('organizations').where({ id: orgId }).select('plan').first()) as
      { plan: string | null } | undefined;
    return this.d.plans ? [...this.d.plans.get(org?.plan ?? 'none').execution_modes] : ['managed', 'runner', 'mcp'];
  }

  async settings(principal: Principal, ws: WorkspaceLike) {
    const [repos, creds, exec, allowed] = await Promise.all([
      this.repositories(principal, ws.id),
      this.credentials(principal.orgId, ws.id),
      OnboardingExecution.query(this.d.db).forOrg(principal.orgId).where({ workspace_id: ws.id }).limit(1).first(),
      this.allowedModes(principal.orgId),
    ]);
    const runsOn = exec?.runs_on ?? [];
    return {
      workspace_id: ws.id,
      mode: ws.execution_mode,
      agent: ws.agent_id,
      auth: ws.auth_method,
      transport: ws.runner_transport,
      allowed_modes: allowed,
      managed_available: allowed.includes('managed'),
      requirements: this.requirements(ws, repos, creds, exec?.credential_later ?? false),
      credentials: creds,
      repositories: repos.map(onboardingRepository),
      runs_on: runsOn,
      cloud_auth: exec?.cloud_auth ?? {},
      preview: await this.preview(principal.orgId, ws, repos[0], runsOn),
    };
  }

  /**
   * The files the runner needs in the repository: the workflow and the config for runner mode
   * over github_actions, the config alone for container and mcp, nothing for managed.
   */
  async preview(orgId: string, ws: WorkspaceLike, repo: OnboardingRepositoryJson | undefined, runsOn: string[]) {
    const empty = {
      files: [] as Array<{ path: string; content: string }>,
      includes_workflow: false,
      needs_agent_key: false,
      missing_variables: [] as string[],
      repository_id: repo?.id ?? null,
    };
    if (!repo || !this.d.repositories || ws.execution_mode === 'managed') return empty;
    const p = await this.d.repositories.onboardingPreview(orgId, repo.id, runsOn.length ? runsOn : undefined);
    const workflow = ws.execution_mode === 'runner' && ws.runner_transport === 'github_actions';
    const files = Object.entries(p.files)
      .filter(([path]) => workflow || path !== p.workflowPath)
      .map(([path, content]) => ({ path, content }));
    const needsKey = workflow && ws.auth_method === 'api-key';
    return {
      files,
      includes_workflow: workflow,
      needs_agent_key: needsKey,
      missing_variables: needsKey && !repo.agent_key.last4 ? [p.secretName] : [],
      repository_id: repo.id,
    };
  }

  private async usersOf(
    db: Knex,
    orgId: string,
    ids: string[],
  ): Promise<Array<{ workspace_id: string; credential_id: string }>> {
    if (ids.length === 0) return [];
    const rows: Array<{
      id: string;
      credential_id: string;
    }> = await db('workspaces')
      .where({ org_id: orgId })
      .whereRaw(`agent_config->>'credential_id' in (${ids.map(() => '?').join(', ')})`, ids)
      .select('id', db.raw(`agent_config->>'credential_id' as credential_id`));
    return rows.map((r) => ({ workspace_id: r.id, credential_id: r.credential_id }));
  }

  /** The credential the workspace's auth method uses: a new one of the right kind, else the current one when it still fits. */
  private async primaryCredential(
    orgId: string,
    ws: WorkspaceLike,
    auth: string,
    created: OnboardingCredential[],
  ): Promise<string | null> {
    const fits = (kind: string) =>
      auth === 'api-key'
        ? kind === 'model_key_a' || kind === 'model_key_b'
        : auth === 'account_login'
          ? kind === 'agent_login_file'
          : auth === 'cloud_a' || auth === 'cloud_b'
            ? kind === auth
            : false;
    const fresh = created.find((c) => fits(c.kind));
    if (fresh) return fresh.id;
    const current = ws.agent_config?.credential_id;
    if (!current) return null;
    const row = await OnboardingCredential.query(this.d.db).forOrg(orgId).findById(current);
    return row && fits(row.kind) ? row.id : null;
  }
}
