import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import { actorOfPrincipal, type RequestDetails, type SignedInActor } from '../../../core/contracts/index.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { Db } from '../../../core/data/db.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { Workspace, type AgentConfig } from '../models/workspace.js';
import { revokeWorkspaceTokens } from './tokens.js';
import {
  findByInboundAddress,
  findByWidgetKey,
  type RoutedWorkspace,
  type WidgetInstall,
} from './workspace-lookups.js';
import { insertWithAddress, pickSlug } from './workspace-naming.js';
import type { ExecutionRulesPort, FixCreditsProvider, WorkspaceLimitsPort } from './workspace-ports.js';

export interface CreateWorkspaceInput {
  name: string;
  slug?: string;
  client_name?: string | null;
  locale?: string;
  execution_mode?: string;
}

export type UpdateWorkspaceInput = Partial<Record<string, unknown>> & { agent_config?: AgentConfig };

export interface WorkspaceServiceDeps {
  db: Db;
  outbox: Outbox;
  audit: AuditWriter;
}

/**
 * Workspaces of an organization: reads with access checks (used by every plugin that takes a
 * workspace id), and the administrative writes of the workspaces section, each audited and
 * announced through the outbox.
 */
export class WorkspaceService {
  constructor(
    private readonly deps: WorkspaceServiceDeps,
    /** Domain of inbound addresses, e.g. `inbound.example.com`. */
    readonly inboundDomain: string,
    private readonly credits: () => FixCreditsProvider | null = () => null,
    private readonly rules: () => ExecutionRulesPort | null = () => null,
    private readonly limits: () => WorkspaceLimitsPort | null = () => null,
  ) {}

  /** The workspace of this organization, or 404 (also for another organization's id). */
  async get(orgId: string, id: string, trx?: Knex): Promise<Workspace> {
    const ws = await Workspace.query(trx ?? this.deps.db)
      .forOrg(orgId)
      .findById(id);
    if (!ws) throw notFound('workspace');
    return ws;
  }

  /**
   * The workspace, when the caller may open it: 404 for an unknown id or another organization's,
   * 403 for a workspace of the caller's organization outside the caller's workspaces.
   */
  async open(principal: Principal, id: string, trx?: Knex): Promise<Workspace> {
    const ws = await this.get(principal.orgId, id, trx);
    if (!canOpenWorkspace(principal, ws.id)) throw forbidden('You cannot open this workspace');
    return ws;
  }

  /** Several workspaces of one organization by id (missing ids are absent from the map). */
  async getMany(orgId: string, ids: string[], trx?: Knex): Promise<Map<string, Workspace>> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return new Map();
    const rows = await Workspace.query(trx ?? this.deps.db)
      .forOrg(orgId)
      .whereIn('id', unique);
    return new Map(rows.map((w) => [w.id, w]));
  }

  /** Routing of inbound mail: the workspace owning an inbound address (any organization), what the inbox reads of it. */
  async findByInboundAddress(address: string, trx?: Knex): Promise<RoutedWorkspace | undefined> {
    return findByInboundAddress(trx ?? this.deps.db, address);
  }

  /** The widget install of a public key, when the key is live (not revoked, workspace not archived). */
  async findByWidgetKey(publicKey: string, trx?: Knex): Promise<WidgetInstall | undefined> {
    return findByWidgetKey(trx ?? this.deps.db, publicKey);
  }

  async availableFixCredits(ws: Workspace): Promise<number> {
    const provider = this.credits();
    return provider ? provider.available(ws.org_id, ws.id) : 0;
  }

  /** The workspaces the caller can open, by name; archived ones only on request. */
  async list(
    principal: Principal,
    opts: { includeArchived: boolean; cursor?: string; limit?: number },
  ): Promise<Page<Workspace>> {
    const q = Workspace.query(this.deps.db).forOrg(principal.orgId);
    if (!opts.includeArchived) q.whereNull('archived_at');
    if (principal.workspaceIds !== null) q.whereIn('id', principal.workspaceIds);
    return paginate<Workspace & Record<string, unknown>>(
      q,
      [
        { column: 'workspaces.name', direction: 'asc', type: 'string' },
        { column: 'workspaces.id', direction: 'asc', type: 'string' },
      ],
      opts,
    );
  }

  async create(actor: SignedInActor, input: CreateWorkspaceInput): Promise<Workspace> {
    const principal = actor.principal;
    return this.deps.db.transaction(async (trx) => {
      const plan = await this.assertPlanAllows(trx, principal.orgId);
      const slug = await pickSlug(trx, principal.orgId, input.slug, input.name);
      const ws = await insertWithAddress(
        trx,
        {
          org_id: principal.orgId,
          name: input.name,
          slug,
          client_name: input.client_name || null,
          locale: input.locale ?? principal.locale ?? 'en',
          execution_mode: input.execution_mode ?? 'managed',
          autonomy: 'approve',
          widget_public_key: `pk_${randomBytes(24).toString('base64url')}`,
          widget_allowed_origins: [],
          mailbox_enabled: true,
        },
        this.inboundDomain,
      );
      await this.deps.audit.record(trx, {
        actor,
        action: 'workspace.created',
        target: { type: 'workspace', id: ws.id },
        workspaceId: ws.id,
        changes: diffFields(
          {},
          {
            name: ws.name,
            slug: ws.slug,
            client_name: ws.client_name,
            locale: ws.locale,
            execution_mode: ws.execution_mode,
            inbound_address: ws.inbound_address,
          },
        ),
        ...(plan
          ? {
              metadata: {
                plan: plan.plan,
                extra_workspace: plan.extra,
                extra_price_usd: plan.extra ? plan.extraPriceUsd : 0,
              },
            }
          : {}),
      });
      await this.deps.outbox.add(
        trx,
        'workspaces.created',
        { workspace_id: ws.id, slug: ws.slug, inbound_address: ws.inbound_address, extra: plan?.extra ?? false },
        { orgId: ws.org_id },
      );
      return ws;
    });
  }

  /**
   * Other plugins (brand, onboarding, codehost) call this one with the caller's principal and the request details
   * (their `request.actor()`); the entry's actor is built from both.
   */
  async update(
    principal: Principal,
    id: string,
    input: UpdateWorkspaceInput,
    from: RequestDetails,
  ): Promise<Workspace> {
    return this.deps.db.transaction(async (trx) => {
      const before = await this.lockOpen(trx, principal, id);
      if (before.archived_at) throw conflict('workspace_archived', 'An archived workspace cannot be changed');
      await this.assertReferences(trx, principal, input);
      const patch: Record<string, unknown> = { ...input };
      if (['execution_mode', 'agent_id', 'auth_method', 'runner_transport'].some((k) => k in patch)) {
        const pick = <T>(k: string, current: T): T => (k in patch ? (patch[k] as T) : current);
        this.rules()?.assertAllowed(
          {
            mode: pick('execution_mode', before.execution_mode),
            agent: pick('agent_id', before.agent_id),
            auth: pick('auth_method', before.auth_method),
            transport: pick('runner_transport', before.runner_transport),
          },
          principal.locale,
          { patch: true },
        );
      }
      for (const k of ['client_name', 'test_command', 'report_intro']) if (patch[k] === '') patch[k] = null;
      if (input.agent_config) patch.agent_config = mergeAgentConfig(before.agent_config ?? {}, input.agent_config);
      const firstResponse =
        (patch.sla_first_response_minutes as number | undefined) ?? before.sla_first_response_minutes;
      const resolution = (patch.sla_resolution_minutes as number | undefined) ?? before.sla_resolution_minutes;
      if (resolution < firstResponse) {
        throw httpError(
          400,
          'invalid_request',
          'sla_resolution_minutes must not be shorter than sla_first_response_minutes',
          {
            errors: [
              { path: 'payload.sla_resolution_minutes', message: 'must be at least sla_first_response_minutes' },
            ],
          },
        );
      }
      const changes = diffFields(snapshot(before), { ...snapshot(before), ...patch }, Object.keys(patch));
      if (Object.keys(changes).length === 0) return before;
      const after = await Workspace.query(trx).forOrg(principal.orgId).patchAndFetchById(id, patch);
      await recordChanges(
        this.deps,
        trx,
        {
          actor: actorOfPrincipal(principal, { ip: from.ip, userAgent: from.userAgent, requestId: from.requestId }),
          action: 'workspace.updated',
          target: { type: 'workspace', id },
          workspaceId: id,
          changes,
        },
        'workspaces.updated',
        { workspace_id: id },
      );
      return after;
    });
  }

  /**
   * Archives: archived_at set, the mailbox stops receiving, the widget key and the API tokens
   * restricted to this workspace are revoked (a token restricted to several workspaces loses this
   * one). `workspaces.archived` tells the plugins holding other credentials of the workspace.
   */
  async archive(actor: SignedInActor, id: string): Promise<Workspace> {
    const principal = actor.principal;
    return this.deps.db.transaction(async (trx) => {
      const before = await this.lockOpen(trx, principal, id);
      if (before.archived_at) throw conflict('workspace_archived', 'The workspace is already archived');
      const now = new Date();
      const after = await Workspace.query(trx)
        .forOrg(principal.orgId)
        .patchAndFetchById(id, { archived_at: now, mailbox_enabled: false, widget_key_revoked_at: now });
      const tokens = await revokeWorkspaceTokens(trx, principal.orgId, id, now);
      await this.deps.audit.record(trx, {
        actor,
        action: 'workspace.archived',
        target: { type: 'workspace', id },
        workspaceId: id,
        changes: diffFields(
          {
            archived_at: null,
            mailbox_enabled: before.mailbox_enabled,
            widget_key_revoked_at: before.widget_key_revoked_at?.toISOString() ?? null,
          },
          { archived_at: now.toISOString(), mailbox_enabled: false, widget_key_revoked_at: now.toISOString() },
        ),
        metadata: { revoked_token_ids: tokens.revoked, narrowed_token_ids: tokens.narrowed },
      });
      await this.deps.outbox.add(
        trx,
        'workspaces.archived',
        { workspace_id: id, revoked_token_ids: tokens.revoked },
        { orgId: after.org_id },
      );
      return after;
    });
  }

  /**
   * The plan's included workspaces (billing, when on). The organization row is locked first, so
   * two creations at once cannot both take the last included workspace.
   */
  private async assertPlanAllows(trx: Knex, orgId: string) {
    const limits = this.limits();
    if (!limits) return null;
    await trx('organizations').where({ id: orgId }).select('id').forUpdate();
    return limits.assert(trx, orgId, 'workspaces_included', {});
  }

  /**
   * Ids a body names are resolved as path ids are: within the caller's organization (a brand
   * profile), and for a credential also within the workspaces the caller can open. Another
   * organization's id, or one that does not exist, answers 404 naming the field. The row holds
   * these references, so the check reads the referenced tables by id and organization.
   */
  private async assertReferences(trx: Knex, principal: Principal, input: UpdateWorkspaceInput): Promise<void> {
    const missing = (path: string, what: string) =>
      httpError(404, 'not_found', `${what} not found`, { errors: [{ path, message: `unknown ${what}` }] });
    const brandProfileId = input.brand_profile_id;
    if (typeof brandProfileId === 'string') {
      const profile: { id: string } | undefined = await trx('brand_profiles')
        .where({ org_id: principal.orgId, id: brandProfileId })
        .first('id');
      if (!profile) throw missing('payload.brand_profile_id', 'brand profile');
    }
    const credentialId = input.agent_config?.credential_id;
    if (typeof credentialId === 'string') {
      const credential: { workspace_id: string | null } | undefined = await trx('onboarding_credentials')
        .where({ org_id: principal.orgId, id: credentialId })
        .first('workspace_id');
      if (!credential || (credential.workspace_id && !canOpenWorkspace(principal, credential.workspace_id)))
        throw missing('payload.agent_config.credential_id', 'credential');
    }
  }

  private async lockOpen(trx: Knex, principal: Principal, id: string): Promise<Workspace> {
    const ws = await Workspace.query(trx).forOrg(principal.orgId).findById(id).forUpdate();
    if (!ws) throw notFound('workspace');
    if (!canOpenWorkspace(principal, ws.id)) throw forbidden('You cannot open this workspace');
    return ws;
  }
}

function mergeAgentConfig(current: AgentConfig, patch: AgentConfig): AgentConfig {
  const out: Record<string, unknown> = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** The stored settings as plain JSON values, for before/after diffs. */
function snapshot(ws: Workspace): Record<string, unknown> {
  const json = ws.toJSON() as Record<string, unknown>;
  if (json.resale_price != null) json.resale_price = Number(json.resale_price);
  return json;
}
