import type { Knex } from 'knex';

/**
 * API tokens of the accounts plugin (`api_tokens.workspace_ids`, jsonb: null means "the
 * creator's workspaces", else an explicit list) that are restricted to an archived workspace:
 * a token restricted to it alone is revoked; a token restricted to several workspaces keeps the
 * others and loses this one. Unrestricted tokens are left alone (the workspace is archived, so
 * nothing reaches it through them anyway).
 */
export async function revokeWorkspaceTokens(
  trx: Knex,
  orgId: string,
  workspaceId: string,
  now: Date,
): Promise<{ revoked: string[]; narrowed: string[] }> {
  const rows = (await trx('api_tokens')
    .select('id', 'workspace_ids')
    .where({ org_id: orgId })
    .whereNull('revoked_at')
    .whereRaw('workspace_ids @> ?::jsonb', [JSON.stringify([workspaceId])])
    .forUpdate()) as { id: string; workspace_ids: string[] | string }[];
  const revoked: string[] = [];
  const narrowed: string[] = [];
  for (const row of rows) {
    const ids = (
      typeof row.workspace_ids === 'string' ? (JSON.parse(row.workspace_ids) as string[]) : row.workspace_ids
    ).filter((id) => id !== workspaceId);
    if (ids.length === 0) {
      await trx('api_tokens').where({ id: row.id, org_id: orgId }).update({ revoked_at: now, updated_at: now });
      revoked.push(row.id);
    } else {
      await trx('api_tokens')
        .where({ id: row.id, org_id: orgId })
        .update({ workspace_ids: JSON.stringify(ids), updated_at: now });
      narrowed.push(row.id);
    }
  }
  return { revoked, narrowed };
}
