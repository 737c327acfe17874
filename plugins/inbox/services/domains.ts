import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import {
  isAdapterError,
  type DomainPurpose,
  type DomainState,
  type SignedInActor,
} from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { EmailDomain } from '../models/index.js';
import { orgPlan, type BrandKey, type InboxDeps, type InboxWorkspace } from './deps.js';
import { checkDomainRecords } from './dns-check.js';
import { domainOut } from './serialize.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

export interface RegisterDomainInput {
  workspace_id?: string;
  brand_profile_id?: string;
  purpose: DomainPurpose;
  domain: string;
}

const HOSTNAME = /^(?=.{4,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A provider failure as an API answer: 503 when it may pass, 502 otherwise. */
function providerError(err: unknown): Error {
  if (!isAdapterError(err)) return err as Error;
  return httpError(err.retryable ? 503 : 502, 'provider_error', `The email provider refused: ${err.message}`, {
    provider_code: err.code,
  });
}

/**
 * Sending and receiving domains of a brand (or of a workspace without one), registered with the
 * email provider through the ChannelAdapter; their DNS records checked by the provider and by our
 * own lookups (`dnsServers`).
 */
export class DomainService {
  constructor(private readonly d: InboxDeps) {}

  private get adapter() {
    return this.d.channelAdapter;
  }

  /** The domains of a workspace's brand, or every domain of the organization the caller can see. */
  async list(principal: Principal, q: { workspace_id?: string }): Promise<Record<string, unknown>[]> {
    const query = EmailDomain.query(this.d.db)
      .forOrg(principal.orgId)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    if (q.workspace_id) {
      const ws = await this.d.workspaces.open(principal, q.workspace_id);
      const key = await this.d.brandDirectory.keyFor(this.d.db, ws);
      query.where({ brand_profile_id: key.brandProfileId });
    }
    const rows = await query;
    return rows.filter((r) => this.visible(principal, r)).map(domainOut);
  }

  async register(actor: SignedInActor, input: RegisterDomainInput): Promise<Record<string, unknown>> {
    const p = actor.principal;
    const { key, workspace } = await this.keyOf(p, input);
    const name = input.domain.trim().toLowerCase().replace(/\.$/, '');
    this.assertAllowed(name);
    if (!this.d.planCatalog.hasFeature(await orgPlan(this.d.db, p.orgId), 'custom_sending_domain')) {
      throw httpError(402, 'plan_limit_reached', 'Custom email domains are not part of your plan', {
        reason: 'custom_domain_in_plan',
      });
    }
    const existing = await EmailDomain.query(this.d.db)
      .forOrg(p.orgId)
      .where({ brand_profile_id: key.brandProfileId, purpose: input.purpose })
      .limit(1)
      .first();
    if (existing)
      throw conflict(
        'domain_exists',
        `A ${input.purpose} domain is already registered here (${existing.name}); delete it first`,
        { domain: existing.name },
      );
    const taken = await EmailDomain.query(this.d.db)
      .acrossOrgs('a domain name is registered once')
      .whereRaw('lower(name) = ?', [name])
      .where({ purpose: input.purpose })
      .select('id')
      .limit(1)
      .first();
    if (taken) throw conflict('domain_taken', `${name} is already registered for ${input.purpose}`, { domain: name });

    let state: DomainState;
    try {
      state = await this.adapter.registerDomain(name, input.purpose);
    } catch (err) {
      throw providerError(err);
    }
    const now = new Date();
    try {
      return await this.d.db.transaction(async (trx) => {
        const row = await EmailDomain.query(trx)
          .insert({
            id: newId(EmailDomain.idPrefix),
            org_id: p.orgId,
            brand_profile_id: key.brandProfileId,
            scope: key.scope,
            workspace_id: workspace?.id ?? null,
            purpose: input.purpose,
            name,
            adapter: this.adapter.identifier,
            status: state.status,
            records: state.records,
            last_error: state.error ?? null,
            verified_at: state.status === 'verified' ? now : null,
            last_checked_at: now,
            created_at: now,
            updated_at: now,
          })
          .returning('*');
        await this.d.audit.record(trx, {
          actor,
          action: 'domain.registered',
          target: { type: 'domain', id: row.id },
          workspaceId: workspace?.id ?? null,
          changes: diffFields({}, { name, purpose: input.purpose, brand_profile_id: key.brandProfileId }),
        });
        await this.d.outbox.add(
          trx,
          'inbox.domain_registered',
          { domain_id: row.id, name, purpose: input.purpose, brand_profile_id: key.brandProfileId },
          { orgId: p.orgId },
        );
        return domainOut(row);
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw conflict('domain_taken', `${name} is already registered for ${input.purpose}`, { domain: name });
      throw err;
    }
  }

  /** The email domains registered for a brand (read by the brand plugin for BrandProfile; no refresh). */
  async ofBrand(db: Knex, orgId: string, brandProfileId: string): Promise<EmailDomain[]> {
    return EmailDomain.query(db)
      .forOrg(orgId)
      .where({ brand_profile_id: brandProfileId })
      .orderBy([{ column: 'purpose' }, { column: 'id' }]);
  }

  /** The domain, refreshed from the provider and DNS when its last check is older than `domainRefreshSeconds`. */
  async get(principal: Principal, brandProfileId: string, purpose: DomainPurpose): Promise<Record<string, unknown>> {
    let row = await this.find(principal, brandProfileId, purpose);
    const age = row.last_checked_at ? Date.now() - new Date(row.last_checked_at).getTime() : Infinity;
    if (age >= this.d.options.domainRefreshSeconds * 1000) row = await this.refresh(row, { quiet: true });
    return domainOut(row);
  }

  async verify(actor: SignedInActor, brandProfileId: string, purpose: DomainPurpose): Promise<Record<string, unknown>> {
    const row = await this.find(actor.principal, brandProfileId, purpose);
    await this.d.rateLimiter.consume(
      `inbox:domain-verify:${row.id}`,
      10,
      60_000,
      'Ten checks a minute per domain; retry later',
    );
    return domainOut(await this.refresh(row, { quiet: false }));
  }

  async setSender(
    actor: SignedInActor,
    brandProfileId: string,
    purpose: DomainPurpose,
    input: { sender_email?: string | null; sender_name?: string | null },
  ): Promise<Record<string, unknown>> {
    const row = await this.find(actor.principal, brandProfileId, purpose);
    const patch: Partial<EmailDomain> = {};
    if (input.sender_email !== undefined) {
      const email = input.sender_email?.trim().toLowerCase() || null;
      if (email && (email.split('@')[1] ?? '') !== row.name) {
        throw httpError(422, 'sender_domain_mismatch', `The address must be at ${row.name}`, { domain: row.name });
      }
      patch.sender_email = email;
    }
    if (input.sender_name !== undefined) patch.sender_name = input.sender_name?.trim() || null;
    const changes = diffFields(
      { sender_email: row.sender_email, sender_name: row.sender_name },
      { sender_email: row.sender_email, sender_name: row.sender_name, ...patch },
      Object.keys(patch),
    );
    if (Object.keys(changes).length === 0) return domainOut(row);
    return this.d.db.transaction(async (trx) => {
      const after = await EmailDomain.query(trx).forOrg(row.org_id).patchAndFetchById(row.id, patch);
      await this.d.audit.record(trx, {
        actor,
        action: 'domain.sender_changed',
        target: { type: 'domain', id: row.id },
        workspaceId: row.workspace_id,
        changes,
      });
      return domainOut(after);
    });
  }

  async remove(actor: SignedInActor, brandProfileId: string, purpose: DomainPurpose): Promise<{ ok: true }> {
    const row = await this.find(actor.principal, brandProfileId, purpose);
    try {
      await this.adapter.deleteDomain(row.name, row.purpose);
    } catch (err) {
      throw providerError(err);
    }
    await this.d.db.transaction(async (trx) => {
      await EmailDomain.query(trx).forOrg(row.org_id).delete().where('id', row.id);
      await this.d.audit.record(trx, {
        actor,
        action: 'domain.deleted',
        target: { type: 'domain', id: row.id },
        workspaceId: row.workspace_id,
        changes: diffFields({ name: row.name, purpose: row.purpose }, { name: null, purpose: null }),
      });
      await this.d.outbox.add(
        trx,
        'inbox.domain_deleted',
        { domain_id: row.id, name: row.name, purpose: row.purpose, brand_profile_id: row.brand_profile_id },
        { orgId: row.org_id },
      );
    });
    return { ok: true };
  }

  // ---- internals

  /**
   * Asks the provider and DNS now. A provider failure keeps the stored records and, when
   * `quiet` (a read), the stored status; a verify answers it (502/503).
   */
  private async refresh(row: EmailDomain, opts: { quiet: boolean }): Promise<EmailDomain> {
    let state: Pick<DomainState, 'status' | 'records' | 'error'>;
    try {
      state = await this.adapter.checkDomain(row.name, row.purpose);
    } catch (err) {
      if (!opts.quiet) throw providerError(err);
      state = {
        status: 'pending',
        records: row.records.map(({ status: _s, ...r }) => r),
        error: { code: 'provider_unavailable', message: (err as Error).message },
      };
    }
    const ageHours = (Date.now() - new Date(row.created_at).getTime()) / 3600_000;
    const checked = await checkDomainRecords(this.d.dns, state, {
      missingFails: ageHours >= this.d.options.recordMissingFailsAfterHours,
    });
    const now = new Date();
    return EmailDomain.query(this.d.db)
      .forOrg(row.org_id)
      .patchAndFetchById(row.id, {
        status: checked.status,
        records: checked.records,
        last_error: state.error ?? null,
        verified_at: checked.status === 'verified' ? (row.verified_at ?? now) : null,
        last_checked_at: now,
      });
  }

  private async find(principal: Principal, brandProfileId: string, purpose: DomainPurpose): Promise<EmailDomain> {
    const row = await EmailDomain.query(this.d.db)
      .forOrg(principal.orgId)
      .where({ brand_profile_id: brandProfileId, purpose })
      .limit(1)
      .first();
    if (!row) throw notFound('domain');
    if (!this.visible(principal, row)) throw forbidden('You cannot open this workspace');
    return row;
  }

  private visible(principal: Principal, row: EmailDomain): boolean {
    return !row.workspace_id || row.scope === 'organization' || canOpenWorkspace(principal, row.workspace_id);
  }

  /** The brand a registration is for: the workspace's (through the brand directory) or a brand profile a workspace uses. */
  private async keyOf(
    principal: Principal,
    input: RegisterDomainInput,
  ): Promise<{ key: BrandKey; workspace: InboxWorkspace | null }> {
    if (input.workspace_id) {
      const workspace = await this.d.workspaces.open(principal, input.workspace_id);
      if (workspace.archived_at) throw conflict('workspace_archived', 'An archived workspace takes no new domain');
      return { key: await this.d.brandDirectory.keyFor(this.d.db, workspace), workspace };
    }
    const using = (await this.d
      .db('workspaces')
      .where({ org_id: principal.orgId, brand_profile_id: input.brand_profile_id })
      .whereNull('archived_at')
      .select('id')
      .limit(1)
      .first()) as { id: string } | undefined;
    if (!using) throw notFound('brand profile');
    const workspace = await this.d.workspaces.open(principal, using.id);
    return { key: await this.d.brandDirectory.keyFor(this.d.db, workspace), workspace };
  }

  private assertAllowed(name: string): void {
    const own = [this.d.workspaces.inboundDomain, new URL(this.d.config.server.publicBaseUrl).hostname].map((d) =>
      d.toLowerCase(),
    );
    const bad = !HOSTNAME.test(name) || own.some((d) => name === d || name.endsWith(`.${d}`) || d.endsWith(`.${name}`));
    if (bad) {
      throw httpError(
        422,
        'domain_not_allowed',
        `${name} cannot be registered: use a domain (or subdomain) you own, e.g. mail.example.com`,
        { domain: name },
      );
    }
  }
}
