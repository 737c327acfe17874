import type { Knex } from 'knex';
import { Pattern } from './pattern-model.js';

const SHARED_REASON = 'patterns: the own organization plus patterns shared by organizations that opted in';

export async function orgOptedIn(trx: Knex, orgId: string): Promise<boolean> {
  const row = await trx('organizations')
    .where({ id: orgId })
    .first<{ patterns_opt_in: boolean } | undefined>('patterns_opt_in');
  return !!row?.patterns_opt_in;
}

export async function workspaceOptedIn(trx: Knex, orgId: string, workspaceId: string): Promise<boolean> {
  const row = await trx('workspaces')
    .where({ id: workspaceId, org_id: orgId })
    .first<{ patterns_opt_in: boolean } | undefined>('patterns_opt_in');
  return !!row?.patterns_opt_in;
}

/** Patterns the organization may read: its own (within `workspaceIds` when limited), plus shared ones of opted-in others when it opted in. */
export function visiblePatterns(
  trx: Knex,
  orgId: string,
  workspaceIds: string[] | null,
  takesShared: boolean,
  scope: 'all' | 'own' | 'shared' = 'all',
) {
  const q = Pattern.query(trx).acrossOrgs(SHARED_REASON);
  q.where((b) => {
    if (scope !== 'shared') {
      b.where((own) => {
        own.where('patterns.org_id', orgId);
        if (workspaceIds) own.whereIn('patterns.workspace_id', workspaceIds);
      });
    }
    if (takesShared && scope !== 'own') {
      b.orWhere((shared) =>
        shared
          .where('patterns.shared', true)
          .whereNot('patterns.org_id', orgId)
          .whereExists(
            trx('organizations')
              .whereRaw('organizations.id = patterns.org_id')
              .where('organizations.patterns_opt_in', true),
          )
          .whereExists(
            trx('workspaces')
              .whereRaw('workspaces.id = patterns.workspace_id')
              .where('workspaces.patterns_opt_in', true)
              .whereNull('workspaces.archived_at'),
          ),
      );
    }
    if (scope === 'shared' && !takesShared) b.whereRaw('false');
  });
  return q;
}
