import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict } from '../../../core/http/errors.js';
import { RepositoryModel } from '../models/index.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { type CodehostDeps, type WorkspaceLike } from './deps.js';
import { iso } from '../../../core/http/times.js';

export interface OssSettingsRow {
  workspace_id: string;
  org_id: string;
  enabled: boolean;
  intake: 'opt_in' | 'opt_out';
  opt_in_label: string;
  opt_out_label: string;
  issues: boolean;
  pull_requests: boolean;
  follow_guidelines: boolean;
  ignore_bots: boolean;
  created_at: Date | null;
  updated_at: Date | null;
}

export type OssPatch = Partial<
  Pick<
    OssSettingsRow,
    | 'enabled'
    | 'intake'
    | 'opt_in_label'
    | 'opt_out_label'
    | 'issues'
    | 'pull_requests'
    | 'follow_guidelines'
    | 'ignore_bots'
  >
> & {
  auto_close_issues?: boolean;
  comments_per_hour?: number;
};

const OWN_FIELDS = [
  'enabled',
  'intake',
  'opt_in_label',
  'opt_out_label',
  'issues',
  'pull_requests',
  'follow_guidelines',
  'ignore_bots',
] as const;

/**
 * Open-source settings of a workspace: whether issues and pull requests become tickets, by which
 * labels, and the two workspace settings they go with (oss_auto_close_issues,
 * oss_comments_per_hour, owned by the workspaces plugin and changed through its service).
 */
export class OssService {
  constructor(private readonly d: CodehostDeps) {}

  /** The settings, or the defaults when never saved (nothing is written). */
  async settings(db: Knex, orgId: string, workspaceId: string): Promise<OssSettingsRow> {
    const row = (await db('codehost_oss_settings').where({ workspace_id: workspaceId, org_id: orgId }).first()) as
      OssSettingsRow | undefined;
    return row ?? this.defaults(orgId, workspaceId);
  }

  defaults(orgId: string, workspaceId: string): OssSettingsRow {
    const { optIn, optOut } = this.d.options.labels;
    return {
      workspace_id: workspaceId,
      org_id: orgId,
      enabled: false,
      intake: 'opt_in',
      opt_in_label: optIn.name,
      opt_out_label: optOut.name,
      issues: true,
      pull_requests: false,
      follow_guidelines: true,
      ignore_bots: true,
      created_at: null,
      updated_at: null,
    };
  }

  async json(db: Knex, ws: WorkspaceLike, row: OssSettingsRow) {
    const repos = await RepositoryModel.query(db)
      .forOrg(ws.org_id)
      .where({ workspace_id: ws.id })
      .orderBy('full_name')
      .orderBy('id');
    return {
      workspace_id: ws.id,
      enabled: row.enabled,
      intake: row.intake,
      opt_in_label: row.opt_in_label,
      opt_out_label: row.opt_out_label,
      issues: row.issues,
      pull_requests: row.pull_requests,
      follow_guidelines: row.follow_guidelines,
      ignore_bots: row.ignore_bots,
      auto_close_issues: ws.oss_auto_close_issues,
      comments_per_hour: ws.oss_comments_per_hour,
      repositories: repos.map((r) => ({
        id: r.id,
        full_name: r.full_name,
        is_public: r.is_public,
        labels_created_at: iso(r.labels_created_at),
        guidelines_read_at: r.guidelines?.read_at ?? null,
        contributing_path: r.guidelines?.contributing?.path ?? null,
        code_of_conduct_path: r.guidelines?.code_of_conduct?.path ?? null,
      })),
      updated_at: iso(row.updated_at),
    };
  }

  async get(principal: Principal, workspaceId: string) {
    const ws = await this.d.workspaces().open(principal, workspaceId);
    return this.json(this.d.db, ws, await this.settings(this.d.db, principal.orgId, workspaceId));
  }

  /** PATCH: the plugin's own fields in one audited transaction; the two workspace fields through the workspaces service (audited there). */
  async update(actor: SignedInActor, workspaceId: string, patch: OssPatch) {
    const principal = actor.principal;
    let ws = await this.d.workspaces().open(principal, workspaceId);
    if (ws.archived_at) throw conflict('workspace_archived', 'An archived workspace cannot be changed');
    const own: Record<string, unknown> = {};
    for (const k of OWN_FIELDS) if (patch[k] !== undefined) own[k] = patch[k];
    const row = await this.d.db.transaction(async (trx) => {
      const before = await this.settings(trx, principal.orgId, workspaceId);
      const after = { ...before, ...own };
      if (after.opt_in_label === after.opt_out_label)
        throw conflict('labels_equal', 'The opt-in and opt-out labels must differ');
      const changes = diffFields(before as unknown as Record<string, unknown>, after, Object.keys(own));
      if (Object.keys(changes).length === 0) return before;
      const now = new Date();
      const values = { ...after, created_at: before.created_at ?? now, updated_at: now };
      await trx('codehost_oss_settings')
        .insert(values)
        .onConflict('workspace_id')
        .merge([...OWN_FIELDS, 'updated_at']);
      await recordChanges(
        this.d,
        trx,
        {
          actor,
          action: 'codehost.oss_settings_updated',
          target: { type: 'workspace', id: workspaceId },
          workspaceId,
          changes,
        },
        'codehost.oss_settings_updated',
        { workspace_id: workspaceId },
      );
      return values;
    });
    const wsPatch: Record<string, unknown> = {};
    if (patch.auto_close_issues !== undefined) wsPatch.oss_auto_close_issues = patch.auto_close_issues;
    if (patch.comments_per_hour !== undefined) wsPatch.oss_comments_per_hour = patch.comments_per_hour;
    if (Object.keys(wsPatch).length) ws = await this.d.workspaces().update(principal, workspaceId, wsPatch, actor);
    return this.json(this.d.db, ws, row);
  }
}
