import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { SsoConnectionModel, SsoDomainModel } from '../models.js';
import { emailDomain, hasPlanFeature, loadOrg, type SsoDeps, type UserRow } from './deps.js';
import { iso } from '../../../core/http/times.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';
import { newId } from '../../../core/data/ids.js';

export const TXT_PREFIX = '_patchwell-challenge';
export const TXT_VALUE_PREFIX = 'patchwell-verification=';

const txtName = (domain: string) => `${TXT_PREFIX}.${domain}`;
const txtValue = (d: SsoDomainModel) => `${TXT_VALUE_PREFIX}${d.txt_value}`;

/** Claimed email domains: TXT challenge, verification, released addresses. */
export class DomainService {
  constructor(private readonly d: SsoDeps) {}

  json(d: SsoDomainModel, conns: SsoConnectionModel[]) {
    return {
      domain: d.domain,
      status: d.status,
      verified_at: iso(d.verified_at),
      last_checked_at: iso(d.last_checked_at),
      last_error: d.last_error ?? null,
      txt: { name: txtName(d.domain), value: txtValue(d) },
      connection_ids: conns.filter((c) => (c.domains ?? []).includes(d.domain)).map((c) => c.id),
      created_at: iso(d.created_at),
    };
  }

  async listModels(db: Knex, orgId: string): Promise<SsoDomainModel[]> {
    return SsoDomainModel.query(db)
      .forOrg(orgId)
      .orderBy([{ column: 'domain' }]);
  }

  private async find(db: Knex, orgId: string, domain: string): Promise<SsoDomainModel> {
    const d = await SsoDomainModel.query(db).forOrg(orgId).where('domain', domain.toLowerCase()).limit(1).first();
    if (!d) throw notFound('domain');
    return d;
  }

  private async jsonOne(db: Knex, orgId: string, d: SsoDomainModel) {
    return this.json(d, await SsoConnectionModel.query(db).forOrg(orgId));
  }

  /** Pending claims for domains a connection names and the organization has not claimed yet. */
  async ensureClaimed(trx: Knex, orgId: string, domains: string[], actor: SignedInActor): Promise<void> {
    for (const domain of domains) await this.insertClaim(trx, orgId, domain, actor, { via: 'connection' });
  }

  /**
   * A pending claim with a fresh TXT challenge, audited; undefined when the organization has claimed the domain
   * already. ON CONFLICT rather than a read first: two claims at once then meet at the unique index, not in a 500.
   */
  private async insertClaim(
    trx: Knex,
    orgId: string,
    domain: string,
    actor: SignedInActor,
    metadata: Record<string, unknown> = {},
  ): Promise<SsoDomainModel | undefined> {
    const [inserted] = (await trx('sso_domains')
      .insert({
        id: newId(SsoDomainModel.idPrefix),
        org_id: orgId,
        domain,
        status: 'pending',
        txt_value: randomBytes(18).toString('base64url'),
      })
      .onConflict(['org_id', 'domain'])
      .ignore()
      .returning('*')) as Record<string, unknown>[];
    if (!inserted) return undefined;
    const row = SsoDomainModel.fromDatabaseJson(inserted);
    await this.d.audit.record(trx, {
      actor,
      action: 'sso.domain_claimed',
      target: { type: 'sso_domain', id: row.id },
      metadata: { domain, ...metadata },
    });
    return row;
  }

  async claim(principal: Principal, domain: string, actor: SignedInActor) {
    const org = await loadOrg(this.d.db, principal.orgId);
    if (!hasPlanFeature(this.d, org, 'sso'))
      throw httpError(402, 'feature_not_in_plan', 'Single sign-on is not part of your plan', {
        feature: 'sso',
        plan: org.plan,
      });
    return this.d.db.transaction(async (trx) => {
      const row = await this.insertClaim(trx, principal.orgId, domain, actor);
      if (!row)
        throw conflict('domain_already_claimed', 'Your organization has already claimed this domain', { domain });
      return this.jsonOne(trx, principal.orgId, row);
    });
  }

  /** Looks the TXT record up now; `verified` when it matches, else last_error says why. */
  async verify(principal: Principal, domain: string, actor: SignedInActor) {
    const row = await this.find(this.d.db, principal.orgId, domain);
    const lookup = await this.d.dnsResolver.txt(txtName(row.domain));
    const expected = txtValue(row);
    let error: SsoDomainModel['last_error'] = null;
    if ('error' in lookup) error = lookup.error === 'missing' ? 'txt_missing' : 'dns_error';
    else if (!lookup.records.includes(expected))
      error = lookup.records.some((r) => r.startsWith(TXT_VALUE_PREFIX)) ? 'txt_mismatch' : 'txt_missing';
    if (!error) {
      const taken = await SsoDomainModel.query(this.d.db)
        .acrossOrgs('a domain is verified by one organization')
        .where({ domain: row.domain, status: 'verified' })
        .whereNot('org_id', principal.orgId)
        .limit(1)
        .first();
      if (taken) error = 'domain_taken';
    }

    const now = new Date();
    const save = async (patch: Partial<SsoDomainModel>) =>
      this.d.db.transaction(async (trx) => {
        await SsoDomainModel.query(trx).forOrg(principal.orgId).findById(row.id).patch(patch);
        if (patch.status === 'verified' && row.status !== 'verified') {
          await this.d.audit.record(trx, {
            actor,
            action: 'sso.domain_verified',
            target: { type: 'sso_domain', id: row.id },
            metadata: { domain: row.domain },
          });
        }
      });
    try {
      if (error) await save({ last_checked_at: now, last_error: error });
      else
        await save({ status: 'verified', verified_at: row.verified_at ?? now, last_checked_at: now, last_error: null });
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await save({ last_checked_at: now, last_error: 'domain_taken' });
    }
    return this.jsonOne(this.d.db, principal.orgId, await this.find(this.d.db, principal.orgId, row.domain));
  }

  async remove(principal: Principal, domain: string, actor: SignedInActor): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const row = await this.find(trx, principal.orgId, domain);
      const org = await loadOrg(trx, principal.orgId);
      if (org.sso_enforced && row.status === 'verified') {
        const others = await SsoDomainModel.query(trx)
          .forOrg(principal.orgId)
          .where('status', 'verified')
          .whereNot('id', row.id)
          .resultSize();
        if (others === 0)
          throw conflict(
            'sso_enforced',
            'Single sign-on is required; turn the requirement off before removing the last verified domain',
          );
      }
      await SsoDomainModel.query(trx).forOrg(principal.orgId).deleteById(row.id);
      for (const c of await SsoConnectionModel.query(trx).forOrg(principal.orgId)) {
        if ((c.domains ?? []).includes(row.domain)) {
          await SsoConnectionModel.query(trx)
            .forOrg(principal.orgId)
            .findById(c.id)
            .patch({ domains: c.domains.filter((x) => x !== row.domain) });
        }
      }
      await this.d.audit.record(trx, {
        actor,
        action: 'sso.domain_removed',
        target: { type: 'sso_domain', id: row.id },
        metadata: { domain: row.domain, status: row.status },
      });
    });
  }

  /** Whether the organization has verified the domain of this address. */
  async isVerifiedFor(db: Knex, orgId: string, email: string): Promise<boolean> {
    const row = await SsoDomainModel.query(db)
      .forOrg(orgId)
      .where({ domain: emailDomain(email), status: 'verified' })
      .limit(1)
      .first();
    return Boolean(row);
  }

  /**
   * Frees an address of one of our verified domains from an account of another organization:
   * the account is closed (removed, disabled, its sessions and API tokens ended), so the person
   * can sign in here with single sign-on.
   */
  async releaseAddress(
    principal: Principal,
    email: string,
    actor: SignedInActor,
  ): Promise<{ released: true; was_verified: boolean }> {
    if (!(await this.isVerifiedFor(this.d.db, principal.orgId, email))) {
      throw httpError(422, 'domain_not_verified', 'The address is not in a domain your organization has verified', {
        domain: emailDomain(email),
      });
    }
    return this.d.db.transaction(async (trx) => {
      const user = (await trx('users').where({ email }).whereNull('removed_at').forUpdate().first()) as
        UserRow | undefined;
      if (!user) throw notFound('account');
      if (user.org_id === principal.orgId)
        throw conflict('same_organization', 'This address belongs to a member of your own organization');
      await this.d.memberService.close(trx, user, 'address_released');
      const meta = { email, released_to_org_id: principal.orgId, was_verified: Boolean(user.email_verified_at) };
      await this.d.audit.record(trx, {
        actor,
        action: 'sso.address_released',
        target: { type: 'user', id: user.id },
        metadata: meta,
      });
      await this.d.audit.record(trx, {
        orgId: user.org_id,
        actor: systemActor('sso', user.org_id),
        action: 'user.closed_by_domain_owner',
        target: { type: 'user', id: user.id },
        metadata: meta,
      });
      await this.d.outbox.add(
        trx,
        'sso.address_released',
        { org_id: principal.orgId, closed_user_id: user.id, closed_user_org_id: user.org_id, email },
        { orgId: principal.orgId },
      );
      return { released: true as const, was_verified: Boolean(user.email_verified_at) };
    });
  }
}
