import type { Principal } from '../../../core/http/auth.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import { OrganizationModel } from '../models.js';
import type { AccountsDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { organizationJson, type OrganizationJson } from './format.js';

/** Settings of the current organization that owners and admins change here (plan and billing fields belong to billing, governance to single sign-on). */
export interface UpdateOrganizationInput {
  name?: string;
  slug?: string;
  billing_email?: string | null;
  locale?: 'en' | 'it';
  retention_days?: number;
  patterns_opt_in?: boolean;
}

export class OrgService {
  constructor(private readonly d: AccountsDeps) {}

  async get(principal: Principal): Promise<OrganizationJson> {
    const org = await OrganizationModel.query(this.d.db).findById(principal.orgId);
    if (!org) throw notFound('organization');
    return organizationJson(org);
  }

  async update(principal: Principal, input: UpdateOrganizationInput, actor: SignedInActor): Promise<OrganizationJson> {
    return this.d.db.transaction(async (trx) => {
      const org = await OrganizationModel.query(trx).findById(principal.orgId).forUpdate();
      if (!org) throw notFound('organization');
      if (input.slug && input.slug !== org.slug) {
        const taken = await OrganizationModel.query(trx)
          .where('slug', input.slug)
          .whereNot('id', org.id)
          .limit(1)
          .first();
        if (taken) throw conflict('slug_taken', 'Another organization uses this slug');
      }
      const before = organizationJson(org);
      const changes = diffFields(before, input as Record<string, unknown>, Object.keys(input));
      if (Object.keys(changes).length === 0) return before;
      await OrganizationModel.query(trx).findById(org.id).patch(input);
      const fresh = (await OrganizationModel.query(trx).findById(org.id))!;
      await recordChanges(
        this.d,
        trx,
        { orgId: org.id, actor, action: 'organization.updated', target: { type: 'organization', id: org.id }, changes },
        'accounts.organization_updated',
        { org_id: org.id },
      );
      return organizationJson(fresh);
    });
  }
}
