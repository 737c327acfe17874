import { randomBytes } from 'node:crypto';
import { conflict, httpError } from '../../../core/http/errors.js';
import { BrandProfileRow, PROFILE_COLUMNS } from '../models.js';
import { orgFacts, statusCnameTarget, type BrandDeps } from './deps.js';
import type { ProfileRecords } from './profile-records.js';
import { checkStatusRecords, statusDomainProblem, statusRecords } from './status-domain.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

/** Column values of a status domain not (yet) verified. */
const STATUS_RESET = {
  status_verified: false,
  status_verified_at: null,
  status_cname_ok: false,
  status_txt_ok: false,
  status_last_checked_at: null,
  status_last_error: null,
  status_failing_since: null,
};

/** A unique index refused the write (two profiles verified the same domain at once). */
/**
 * The status-page domain of a profile: set, cleared, verified by its DNS records (status-domain.ts)
 * now or on a schedule, with a grace period before a verified domain that starts failing stops serving.
 */
export class StatusDomains {
  constructor(
    private readonly d: BrandDeps,
    private readonly records: ProfileRecords,
  ) {}

  /** PUT …/status-domain: a new domain, unverified until its CNAME and TXT records check out (custom domains in the plan). */
  async setStatusDomain(actor: SignedInActor, id: string, domainInput: string): Promise<Record<string, unknown>> {
    const p = actor.principal;
    const domain = domainInput.trim().toLowerCase().replace(/\.$/, '');
    const own = [new URL(this.d.config.server.publicBaseUrl).hostname, statusCnameTarget(this.d)].map((h) =>
      h.toLowerCase(),
    );
    const problem = statusDomainProblem(domain, own);
    if (problem)
      throw httpError(422, 'domain_not_allowed', `${domain} cannot be a status domain: ${problem}`, { domain });
    return this.d.db.transaction(async (trx) => {
      const before = await this.records.lock(trx, p.orgId, id);
      const org = await orgFacts(trx, p.orgId);
      if (!this.d.planCatalog.hasFeature(org.plan, 'custom_sending_domain')) {
        throw httpError(402, 'plan_limit_reached', 'Custom domains are not part of your plan', {
          reason: 'custom_domain_in_plan',
        });
      }
      if (before.status_domain === domain) return this.records.out(trx, before, org);
      const taken = await BrandProfileRow.query(trx)
        .acrossOrgs('a status domain serves one brand')
        .select('id')
        .whereRaw('lower(status_domain) = ?', [domain])
        .whereNot({ id })
        .where((q) => q.where({ status_verified: true }).orWhere({ org_id: p.orgId }))
        .limit(1)
        .first();
      if (taken) throw conflict('domain_taken', `${domain} is already the status domain of another brand`, { domain });
      const now = new Date();
      await BrandProfileRow.query(trx)
        .forOrg(p.orgId)
        .findById(id)
        .patch({
          status_domain: domain,
          status_txt_token: randomBytes(16).toString('hex'),
          ...STATUS_RESET,
          updated_at: now,
        });
      await this.d.audit.record(trx, {
        actor,
        action: 'brand.status_domain_set',
        target: { type: 'brand_profile', id },
        changes: { status_domain: { before: before.status_domain, after: domain } },
      });
      await this.d.outbox.add(trx, 'brand.status_domain_changed', { brand_profile_id: id, domain }, { orgId: p.orgId });
      return this.records.out(trx, await this.records.find(trx, p.orgId, id), org);
    });
  }

  /** DELETE …/status-domain. */
  async clearStatusDomain(actor: SignedInActor, id: string): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      const before = await this.records.lock(trx, p.orgId, id);
      if (before.status_domain) {
        await BrandProfileRow.query(trx)
          .forOrg(p.orgId)
          .findById(id)
          .patch({ status_domain: null, status_txt_token: null, ...STATUS_RESET, updated_at: new Date() });
        await this.d.audit.record(trx, {
          actor,
          action: 'brand.status_domain_removed',
          target: { type: 'brand_profile', id },
          changes: { status_domain: { before: before.status_domain, after: null } },
        });
        await this.d.outbox.add(
          trx,
          'brand.status_domain_changed',
          { brand_profile_id: id, domain: null },
          { orgId: p.orgId },
        );
      }
      return this.records.out(trx, await this.records.find(trx, p.orgId, id));
    });
  }

  /** Checks the CNAME and TXT now (POST …/status-domain/verify). */
  async verifyStatusDomain(actor: SignedInActor, id: string): Promise<{ profile: Record<string, unknown> }> {
    const p = actor.principal;
    const row = await this.records.find(this.d.db, p.orgId, id);
    if (!row.status_domain)
      throw conflict('no_status_domain', 'Set a status domain first (PUT /v1/brand/profiles/{id}/status-domain)');
    await this.check(row, actor);
    return { profile: await this.records.get(p, id) };
  }

  /**
   * Looks the records up and stores the outcome. A verified domain whose records start failing
   * keeps serving for `statusGraceHours` from `failing_since`, then is unverified. Returns true
   * when the domain became verified.
   */
  async check(row: BrandProfileRow, actor: SignedInActor | null): Promise<boolean> {
    if (!row.status_domain || !row.status_txt_token) return false;
    const records = statusRecords(row.status_domain, row.status_txt_token, {
      cnameTarget: statusCnameTarget(this.d),
      txtLabel: this.d.options.statusTxtLabel,
    });
    const result = await checkStatusRecords(this.d.dns, records);
    return this.d.db.transaction(async (trx) => {
      const current = await BrandProfileRow.query(trx)
        .forOrg(row.org_id)
        .select(PROFILE_COLUMNS)
        .findById(row.id)
        .forUpdate();
      if (!current || current.status_domain !== row.status_domain || current.status_txt_token !== row.status_txt_token)
        return false;
      const now = new Date();
      let error = result.error;
      if (!error) {
        const taken = await BrandProfileRow.query(trx)
          .acrossOrgs('a status domain serves one brand')
          .select('id')
          .whereRaw('lower(status_domain) = ?', [row.status_domain])
          .where({ status_verified: true })
          .whereNot({ id: row.id })
          .limit(1)
          .first();
        if (taken) error = 'domain_taken';
      }
      const patch: Record<string, unknown> = {
        status_cname_ok: result.cnameOk,
        status_txt_ok: result.txtOk,
        status_last_checked_at: now,
        status_last_error: error,
      };
      if (!error)
        Object.assign(patch, {
          status_verified: true,
          status_verified_at: current.status_verified ? current.status_verified_at : now,
          status_failing_since: null,
        });
      else {
        const since = current.status_failing_since ?? now;
        patch.status_failing_since = since;
        const graceOver = now.getTime() - new Date(since).getTime() >= this.d.options.statusGraceHours * 3600_000;
        if (current.status_verified && (graceOver || error === 'domain_taken'))
          Object.assign(patch, { status_verified: false, status_verified_at: null });
      }
      try {
        await BrandProfileRow.query(trx).forOrg(row.org_id).findById(row.id).patch(patch);
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        return false; // verified elsewhere at the same moment; the next check reports domain_taken
      }
      const became = !error && !current.status_verified;
      const lost = !!error && current.status_verified && patch.status_verified === false;
      if (became || lost) {
        await this.d.audit.record(trx, {
          orgId: row.org_id,
          actor: actor ?? systemActor('brand', row.org_id),
          action: became ? 'brand.status_domain_verified' : 'brand.status_domain_unverified',
          target: { type: 'brand_profile', id: row.id },
          changes: {
            status_domain_verified: { before: current.status_verified, after: became },
            ...(error ? { last_error: { before: current.status_last_error, after: error } } : {}),
          },
        });
        await this.d.outbox.add(
          trx,
          became ? 'brand.status_domain_verified' : 'brand.status_domain_unverified',
          { brand_profile_id: row.id, domain: row.status_domain, error },
          { orgId: row.org_id },
        );
      }
      return became;
    });
  }

  /** Scheduled: checks status domains not checked for `statusRecheckMinutes` (pending ones and verified ones). */
  async recheckDue(limit = 50): Promise<number> {
    const cutoff = new Date(Date.now() - this.d.options.statusRecheckMinutes * 60_000);
    const due = await BrandProfileRow.query(this.d.db)
      .acrossOrgs('scheduled status-domain checks')
      .select(PROFILE_COLUMNS)
      .whereNotNull('status_domain')
      .where((q) => q.whereNull('status_last_checked_at').orWhere('status_last_checked_at', '<', cutoff))
      .orderBy('status_last_checked_at', 'asc')
      .limit(limit);
    for (const row of due) await this.check(row, null);
    return due.length;
  }
}
