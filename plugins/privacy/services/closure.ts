import { rmSync } from 'node:fs';
import { conflict, httpError } from '../../../core/http/errors.js';
import type { PrivacyDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { byTable, columnsOf } from './schema.js';
import { deleteInAnyOrder } from './ticket-deletion.js';

const DAY = 24 * 60 * 60 * 1000;
const LIVE = new Set(['trialing', 'active', 'past_due']);

export interface ClosureOut {
  org_id: string;
  closed_at: string;
  purge_after: string;
  subscription_canceled: boolean;
}

/**
 * Closes an organization: its subscription stops renewing (through the billing plugin, so the
 * provider and billing's own records agree), every member is disabled and every session and API
 * token is revoked in the same transaction (the next request answers 401), pending invitations
 * are revoked; a scheduled purge deletes all its rows, in every table with org_id, after
 * `closurePurgeDays` (at most 30).
 */
export class ClosureService {
  constructor(private readonly d: PrivacyDeps) {}

  async close(actor: SignedInActor, input: { confirm: string; reason?: string | null }): Promise<ClosureOut> {
    const { db } = this.d;
    const org: { id: string; slug: string; subscription_status: string } | undefined = await db('organizations')
      .where({ id: actor.orgId })
      .first('id', 'slug', 'subscription_status');
    if (!org) throw httpError(404, 'not_found', 'organization not found');
    if (input.confirm !== org.slug)
      throw httpError(422, 'confirmation_mismatch', 'Type the organization’s slug to confirm', { expected: 'slug' });
    if (await db('privacy_closures').where({ org_id: org.id }).first())
      throw conflict('already_closed', 'This organization is already closed');

    let canceled = false;
    if (this.d.billing && LIVE.has(org.subscription_status)) {
      await this.d.billing.cancel(actor, `closure:${org.id}`);
      canceled = true;
    }

    const now = this.d.clock();
    const purgeAfter = new Date(now.getTime() + this.d.options.closurePurgeDays * DAY);
    await db.transaction(async (trx) => {
      await trx('users').where({ org_id: org.id }).whereNull('disabled_at').update({ disabled_at: now });
      const sessions = await trx('sessions')
        .where({ org_id: org.id })
        .whereNull('revoked_at')
        .update({ revoked_at: now, revoked_reason: 'organization_closed' });
      const tokens = await trx('api_tokens')
        .where({ org_id: org.id })
        .whereNull('revoked_at')
        .update({ revoked_at: now });
      const invitations = await trx('invitations')
        .where({ org_id: org.id })
        .whereNull('accepted_at')
        .whereNull('revoked_at')
        .update({ revoked_at: now });
      await trx('privacy_closures').insert({
        org_id: org.id,
        closed_by_user_id: actor.userId,
        reason: input.reason ?? null,
        closed_at: now,
        purge_after: purgeAfter,
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'organization.closed',
        target: { type: 'organization', id: org.id },
        metadata: {
          purge_after: purgeAfter.toISOString(),
          sessions_revoked: sessions,
          tokens_revoked: tokens,
          invitations_revoked: invitations,
          subscription_canceled: canceled,
        },
      });
      await this.d.outbox.add(
        trx,
        'privacy.organization_closed',
        { org_id: org.id, purge_after: purgeAfter.toISOString() },
        { orgId: org.id },
      );
    });
    return {
      org_id: org.id,
      closed_at: now.toISOString(),
      purge_after: purgeAfter.toISOString(),
      subscription_canceled: canceled,
    };
  }

  /** Deletes the data of every closed organization whose purge date has come. Answers how many. */
  async purgeDue(): Promise<number> {
    const { db } = this.d;
    const due: Array<{ org_id: string }> = await db('privacy_closures')
      .whereNull('purged_at')
      .where('purge_after', '<=', this.d.clock())
      .select('org_id');
    for (const { org_id: orgId } of due) {
      // Archives of its exports live on disk: they go first.
      const files: Array<{ file_path: string }> = await db('privacy_exports')
        .where({ org_id: orgId })
        .whereNotNull('file_path')
        .select('file_path');
      for (const f of files) rmSync(f.file_path, { force: true });
      const cols = byTable(await columnsOf(db));
      const tables = [...cols]
        .filter(([t, c]) => t !== 'privacy_closures' && t !== 'organizations' && c.some((x) => x.column === 'org_id'))
        .map(([t]) => t);
      await db.transaction(async (trx) => {
        const counts = await deleteInAnyOrder(trx, tables, (q) => q.where('org_id', orgId));
        counts.organizations = (
          (await trx('organizations').where({ id: orgId }).delete().returning('id')) as unknown[]
        ).length;
        for (const k of Object.keys(counts)) if (!counts[k]) delete counts[k];
        await trx('privacy_closures')
          .where({ org_id: orgId })
          .update({ purged_at: this.d.clock(), purge_counts: JSON.stringify(counts) });
      });
      this.d.log.info({ orgId }, 'closed organization purged');
    }
    return due.length;
  }
}
