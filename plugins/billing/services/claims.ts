import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { Claim } from '../models.js';
import { addDays } from './periods.js';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import { BILLING, type BillingDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';

export type ClaimKind = 'review' | 'case_study';

/**
 * Claims: an organization asks for credits for a published review or case study (one of each
 * kind while pending or approved). Staff decide (`decide`, container `billingClaims`), or, with
 * `claims.autoApprove`, the claim is approved on request. Approval grants `review` or
 * `case_study` credits once (reference = the claim).
 */
/** The columns of a claim its answer shows, as the model or a plain knex read answers them. */
export type ClaimRow = Pick<
  Claim,
  'id' | 'org_id' | 'kind' | 'status' | 'url' | 'note' | 'fixes' | 'decided_at' | 'created_at' | 'updated_at'
>;

export class Claims {
  constructor(private readonly d: BillingDeps) {}

  fixesFor(kind: ClaimKind): number {
    return kind === 'review' ? this.d.options.claims.reviewFixes : this.d.options.claims.caseStudyFixes;
  }

  async create(
    orgId: string,
    userId: string | null,
    actor: AuditedActor,
    input: { kind: ClaimKind; url: string; note?: string | null },
  ): Promise<Claim> {
    return this.d.db.transaction(async (trx) => {
      const open = await Claim.query(trx)
        .forOrg(orgId)
        .where({ kind: input.kind })
        .whereIn('status', ['pending', 'approved'])
        .limit(1)
        .first();
      if (open)
        throw conflict('claim_exists', `A ${input.kind.replace('_', ' ')} claim is already ${open.status}`, {
          claim_id: open.id,
          status: open.status,
        });
      const inserted = await Claim.query(trx).insert({
        id: newId(Claim.idPrefix),
        org_id: orgId,
        kind: input.kind,
        status: 'pending',
        url: input.url,
        note: input.note ?? null,
        fixes: this.fixesFor(input.kind),
        requested_by_user_id: userId,
      });
      const claim = (await Claim.query(trx).forOrg(orgId).findById(inserted.id))!;
      await this.d.audit.record(trx, {
        orgId,
        actor,
        action: 'billing.claim_requested',
        target: { type: 'claim', id: claim.id },
        metadata: { kind: input.kind, url: input.url },
      });
      await this.d.outbox.add(
        trx,
        'billing.claim_requested',
        { org_id: orgId, claim_id: claim.id, kind: input.kind, url: input.url },
        { orgId },
      );
      if (this.d.options.claims.autoApprove)
        return this.decideIn(
          trx,
          orgId,
          claim.id,
          true,
          { ...BILLING, requestId: actor.requestId },
          'approved on request',
        );
      return claim;
    });
  }

  async list(
    db: Knex,
    orgId: string,
    opts: { cursor?: string; limit?: number },
  ): Promise<Page<Record<string, unknown>>> {
    const q = db('billing_claims').where({ org_id: orgId });
    const page = await paginate<ClaimRow>(
      q,
      [
        { column: 'created_at', direction: 'desc', type: 'date' },
        { column: 'id', direction: 'desc', type: 'string' },
      ],
      opts,
    );
    return { items: page.items.map((r) => this.json(r)), next_cursor: page.next_cursor };
  }

  /** Staff decision: approval grants the credits. */
  async decide(orgId: string, claimId: string, approve: boolean, actor: AuditedActor, note?: string): Promise<Claim> {
    return this.d.db.transaction((trx) => this.decideIn(trx, orgId, claimId, approve, actor, note));
  }

  private async decideIn(
    trx: Knex,
    orgId: string,
    claimId: string,
    approve: boolean,
    actor: AuditedActor,
    note?: string,
  ): Promise<Claim> {
    const claim = await Claim.query(trx).forOrg(orgId).findById(claimId).forUpdate();
    if (!claim) throw notFound('claim');
    if (claim.status !== 'pending') throw conflict('claim_decided', `The claim is already ${claim.status}`);
    const now = this.d.clock();
    let balanceId: string | null = null;
    if (approve && claim.fixes > 0) {
      const { balance } = await this.d.ledger.grant(trx, {
        orgId,
        source: claim.kind,
        fixes: claim.fixes,
        reference: `claim:${claim.id}`,
        expiresAt: addDays(now, this.d.options.creditExpiryDays[claim.kind]),
        note: `${claim.kind.replace('_', ' ')}: ${claim.url}`,
      });
      balanceId = balance.id;
    }
    await Claim.query(trx)
      .forOrg(orgId)
      .where('id', claim.id)
      .patch({
        status: approve ? 'approved' : 'rejected',
        balance_id: balanceId,
        decided_by: actor.id ?? actor.type,
        decided_at: now,
        decision_note: note ?? null,
      });
    await this.d.audit.record(trx, {
      orgId,
      actor,
      action: approve ? 'billing.claim_approved' : 'billing.claim_rejected',
      target: { type: 'claim', id: claim.id },
      changes: { status: { before: 'pending', after: approve ? 'approved' : 'rejected' } },
    });
    return (await Claim.query(trx).forOrg(orgId).findById(claim.id))!;
  }

  json(row: ClaimRow): Record<string, unknown> {
    return {
      id: row.id,
      org_id: row.org_id,
      kind: row.kind,
      status: row.status,
      url: row.url,
      note: row.note ?? null,
      fixes: Number(row.fixes),
      decided_at: iso(row.decided_at),
      created_at: iso(row.created_at),
      updated_at: iso(row.updated_at),
    };
  }
}
