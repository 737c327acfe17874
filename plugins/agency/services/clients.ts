import type { Knex } from 'knex';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { notFound } from '../../../core/http/errors.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import { assertAgency } from './partner.js';

/** The brand plugin's directory, as far as the agency reads it. */
export type BrandDirectoryPort = Pick<Cradle['brandDirectory'], 'workspaceBrand'>;

/** The workspaces plugin's service, as far as the agency reads it. */
export type WorkspaceReaderPort = Pick<Cradle['workspaceService'], 'get'>;

/** The client workspaces of an agency: its workspaces with a client_name, not archived, that the caller can open. */
export async function clientWorkspaceIds(db: Knex, principal: Principal): Promise<string[]> {
  const org = (await db('organizations').select('type').where({ id: principal.orgId }).first()) as
    { type: string } | undefined;
  if (!org) throw notFound('organization');
  assertAgency(org);
  const rows: { id: string }[] = await db('workspaces')
    .where({ org_id: principal.orgId })
    .whereNull('archived_at')
    .whereNotNull('client_name')
    .whereNot('client_name', '')
    .orderBy([{ column: 'created_at' }, { column: 'id' }])
    .select('id');
  return rows.map((r) => r.id).filter((id) => canOpenWorkspace(principal, id));
}

/** GET /v1/agency/white-label: readiness of every client (WorkspaceBrand plus ready). */
export class WhiteLabelReadiness {
  constructor(
    private readonly d: { db: () => Knex; directory: () => BrandDirectoryPort; workspaces: () => WorkspaceReaderPort },
  ) {}

  async list(principal: Principal): Promise<{ items: Record<string, unknown>[]; ready: number; total: number }> {
    const db = this.d.db();
    const items: Record<string, unknown>[] = [];
    for (const id of await clientWorkspaceIds(db, principal)) {
      const ws = await this.d.workspaces().get(principal.orgId, id);
      const brand = await this.d.directory().workspaceBrand(db, ws);
      const missing = brand.white_label_missing as string[];
      items.push({
        workspace_id: ws.id,
        name: ws.name,
        client_name: ws.client_name,
        brand_profile_id: brand.brand_profile_id,
        effective_profile_id: brand.effective_profile_id,
        status_base_url: brand.status_base_url,
        show_badge: brand.show_badge,
        ready: missing.length === 0,
        missing,
      });
    }
    return { items, ready: items.filter((i) => i.ready).length, total: items.length };
  }
}
