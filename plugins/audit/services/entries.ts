import type { Knex } from 'knex';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';

/** An audit entry as the API, the export and the stream give it: the stored row with actor and target nested. */
export interface AuditEntryOut extends Pick<
  AuditEntry,
  'id' | 'org_id' | 'action' | 'workspace_id' | 'changes' | 'metadata' | 'ip' | 'user_agent' | 'request_id'
> {
  actor: { type: string; id: string | null; email: string | null };
  target: { type: string; id: string | null } | null;
  created_at: string;
}

const parse = <T>(v: unknown): T | null => (v == null ? null : typeof v === 'string' ? (JSON.parse(v) as T) : (v as T));

export function entryOut(row: AuditEntry): AuditEntryOut {
  return {
    id: row.id,
    org_id: row.org_id,
    action: row.action,
    actor: { type: row.actor_type, id: row.actor_id, email: row.actor_email },
    target: row.target_type ? { type: row.target_type, id: row.target_id } : null,
    workspace_id: row.workspace_id,
    changes: parse(row.changes),
    metadata: parse(row.metadata),
    ip: row.ip,
    user_agent: row.user_agent,
    request_id: row.request_id,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** Filters of the list and the export. */
export interface AuditFilters {
  /** Actor id (user, token) or email, exact. */
  actor?: string;
  /** Action, or an action prefix ending with `.` or `*` (`member.`, `member.*`). */
  action?: string;
  target_type?: string;
  target_id?: string;
  workspace_id?: string;
  from?: Date;
  to?: Date;
  /** The caller's workspaces when limited to some (a scoped API token): only their entries. */
  workspaceIds?: string[] | null;
}

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The organization's entries matching the filters (no order, no limit). */
export function filtered(db: Knex, orgId: string, f: AuditFilters): Knex.QueryBuilder {
  const q = db('audit_entries').where('org_id', orgId);
  if (f.actor) {
    const actor = f.actor;
    q.where((w) => void w.where('actor_id', actor).orWhereRaw('lower(actor_email) = ?', [actor.toLowerCase()]));
  }
  if (f.action) {
    const prefix = f.action.endsWith('*') ? f.action.slice(0, -1) : f.action.endsWith('.') ? f.action : null;
    if (prefix !== null) q.whereRaw("action like ? escape '\\'", [`${likeEscape(prefix)}%`]);
    else q.where('action', f.action);
  }
  if (f.target_type) q.where('target_type', f.target_type);
  if (f.target_id) q.where('target_id', f.target_id);
  if (f.workspace_id) q.where('workspace_id', f.workspace_id);
  if (f.workspaceIds) q.whereIn('workspace_id', f.workspaceIds);
  if (f.from) q.where('created_at', '>=', f.from);
  if (f.to) q.where('created_at', '<', f.to);
  return q;
}

export const CSV_COLUMNS = [
  'id',
  'created_at',
  'action',
  'actor_type',
  'actor_id',
  'actor_email',
  'target_type',
  'target_id',
  'workspace_id',
  'ip',
  'user_agent',
  'request_id',
  'changes',
  'metadata',
] as const;

/** RFC 4180 field; a leading =, +, -, @ is prefixed with ' so spreadsheets do not run it as a formula. */
function csvField(v: unknown): string {
  if (v == null) return '';
  let s = typeof v === 'string' ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export const csvHeader = (): string => `${CSV_COLUMNS.join(',')}\r\n`;

export function csvLine(e: AuditEntryOut): string {
  const flat: Record<(typeof CSV_COLUMNS)[number], unknown> = {
    id: e.id,
    created_at: e.created_at,
    action: e.action,
    actor_type: e.actor.type,
    actor_id: e.actor.id,
    actor_email: e.actor.email,
    target_type: e.target?.type ?? null,
    target_id: e.target?.id ?? null,
    workspace_id: e.workspace_id,
    ip: e.ip,
    user_agent: e.user_agent,
    request_id: e.request_id,
    changes: e.changes,
    metadata: e.metadata,
  };
  return `${CSV_COLUMNS.map((c) => csvField(flat[c])).join(',')}\r\n`;
}
