import type { Knex } from 'knex';
import { newId } from '../data/ids.js';
import type { Actor } from '../http/actor.js';

/** An actor the log can name (the API's actor types): an anonymous caller changes nothing administrative. */
export type AuditedActor = Actor & { type: Exclude<Actor['type'], 'anonymous'> };

/**
 * The organization whose log holds the entry is the actor's unless `orgId` names it. It must be named where the
 * actor's type does not promise one (a system actor, staff acting for another organization).
 */
export type AuditEntryInput = AuditEntryFields &
  ({ actor: AuditedActor & { orgId: string }; orgId?: string } | { actor: AuditedActor; orgId: string });

interface AuditEntryFields {
  /** `<resource>.<verb>`, e.g. `workspace.updated`, `member.role_changed`. */
  action: string;
  target?: { type: string; id: string | null };
  workspaceId?: string | null;
  /** Field-level before/after; only the fields that changed. */
  changes?: Record<string, { before: unknown; after: unknown }>;
  metadata?: Record<string, unknown>;
}

export interface AuditEntry {
  id: string;
  org_id: string;
  actor_type: string;
  actor_id: string | null;
  actor_email: string | null;
  action: string;
  target_type: string | null;
  target_id: string | null;
  workspace_id: string | null;
  changes: Record<string, { before: unknown; after: unknown }> | null;
  metadata: Record<string, unknown> | null;
  ip: string | null;
  user_agent: string | null;
  request_id: string | null;
  created_at: Date;
}

/** Actors who act only inside their own organization: their entries never land in another one's log. */
const OWN_ORG_ONLY: ReadonlySet<AuditedActor['type']> = new Set(['user', 'token', 'job']);

/**
 * The organization an entry belongs to. A user, token or job naming another organization than its own is a
 * programming error (it would write into another tenant's log), so it throws rather than record it.
 */
export function auditOrgOf(entry: Pick<AuditEntryInput, 'orgId' | 'actor'>): string {
  const { actor } = entry;
  const orgId = entry.orgId ?? actor.orgId;
  if (!orgId) throw new Error(`audit entry of ${actor.type} ${actor.id ?? ''} names no organization`);
  if (OWN_ORG_ONLY.has(actor.type) && actor.orgId && actor.orgId !== orgId)
    throw new Error(`audit entry of ${actor.type} ${actor.id ?? ''} names another organization`);
  return orgId;
}

/** Fields that never enter the audit log in clear. */
const REDACT = /(password|secret|token|key|hash|credential)/i;

/**
 * Append-only audit entries of administrative changes. Write in the same transaction as the
 * change (`record(trx, …)`) so the log never claims a change that rolled back, nor misses one.
 */
export class AuditWriter {
  constructor(private readonly db: Knex) {}

  async record(trx: Knex | Knex.Transaction | null, entry: AuditEntryInput): Promise<string> {
    const id = newId('aud');
    const { actor } = entry;
    await (trx ?? this.db)('audit_entries').insert({
      id,
      org_id: auditOrgOf(entry),
      actor_type: actor.type,
      actor_id: actor.id,
      actor_email: actor.email,
      action: entry.action,
      target_type: entry.target?.type ?? null,
      target_id: entry.target?.id ?? null,
      workspace_id: entry.workspaceId ?? null,
      changes: entry.changes ? JSON.stringify(redact(entry.changes)) : null,
      metadata: entry.metadata ? JSON.stringify(entry.metadata) : null,
      ip: actor.ip,
      user_agent: actor.userAgent?.slice(0, 512) ?? null,
      request_id: actor.requestId,
      created_at: new Date(),
    });
    return id;
  }
}

/** The fields whose values differ between two objects, for `changes`. */
export function diffFields(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
  fields?: string[],
): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const k of fields ?? Object.keys(after)) {
    if (JSON.stringify(before[k] ?? null) !== JSON.stringify(after[k] ?? null))
      out[k] = { before: before[k] ?? null, after: after[k] ?? null };
  }
  return out;
}

function redact(
  changes: Record<string, { before: unknown; after: unknown }>,
): Record<string, { before: unknown; after: unknown }> {
  const out: Record<string, { before: unknown; after: unknown }> = {};
  for (const [k, v] of Object.entries(changes))
    out[k] = REDACT.test(k)
      ? { before: v.before == null ? null : '[redacted]', after: v.after == null ? null : '[redacted]' }
      : v;
  return out;
}
