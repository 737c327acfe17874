import type { Knex } from 'knex';
import type { PlanId, SubscriptionStatus } from '../../../core/contracts/index.js';
import type { SignedInActor } from '../../../core/http/actor.js';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import { conflict, notFound } from '../../../core/http/errors.js';
import { paginate, type Page, type SortKey } from '../../../core/http/pagination.js';
import type { AccountStore } from './account-store.js';
import { creditsBySource } from './billing-view.js';
import type { ClaimRow, Claims } from './claims.js';
import type { BillingDeps } from './deps.js';
import { LIVE_STATUSES } from './subscription-status.js';
import { iso } from '../../../core/http/times.js';

/** Keyset order of a staff list: newest first, the id breaking ties. */
const newestFirst = (table: string): SortKey[] => [
  { column: `${table}.created_at`, direction: 'desc', type: 'date' },
  { column: `${table}.id`, direction: 'desc', type: 'string' },
];

/** A staff member acting on another organization: the audit log there names them as staff. */
export const asStaff = (actor: SignedInActor): AuditedActor => ({ ...actor, type: 'staff' });

type OrgListRow = {
  id: string;
  name: string;
  slug: string;
  plan: PlanId;
  subscription_status: SubscriptionStatus;
  created_at: Date;
  credits_remaining: string | number | null;
  members: string | number;
};

/** The organization's row as the detail reads it (`select *`). */
type OrgRow = Omit<OrgListRow, 'credits_remaining' | 'members'> & {
  billing_email: string | null;
  trial_ends_at: Date | string | null;
  current_period_end: Date | string | null;
};

/**
 * The operator's desk of a self-hosted installation: every organization with its plan and
 * credits, a plan granted by hand (enterprise, the only plan with single sign-on, is sold by no
 * checkout), and the review of credit claims. Staff only; each change is audited in the
 * organization it changes, with the staff member as its actor.
 */
export class StaffDesk {
  constructor(
    private readonly d: BillingDeps,
    private readonly store: AccountStore,
    private readonly claims: Claims,
  ) {}

  async organizations(opts: {
    q?: string;
    plan?: PlanId;
    cursor?: string;
    limit?: number;
  }): Promise<Page<Record<string, unknown>>> {
    const now = this.d.clock();
    const db = this.d.db;
    const q = db('organizations as o').select(
      'o.id',
      'o.name',
      'o.slug',
      'o.plan',
      'o.subscription_status',
      'o.created_at',
      db('credit_balances as b')
        .sum('b.fixes_remaining')
        .whereRaw('b.org_id = o.id')
        .where((w) => w.whereNull('b.expires_at').orWhere('b.expires_at', '>', now))
        .as('credits_remaining'),
      db('users as u').count('*').whereRaw('u.org_id = o.id').whereNull('u.removed_at').as('members'),
    );
    if (opts.plan) q.where('o.plan', opts.plan);
    if (opts.q) {
      const term = `%${opts.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      q.where((w) => w.whereILike('o.name', term).orWhereILike('o.slug', term).orWhere('o.id', opts.q!));
    }
    const page = await paginate<OrgListRow>(q, newestFirst('o'), opts);
    return { items: page.items.map((r) => this.summary(r)), next_cursor: page.next_cursor };
  }

  async organization(orgId: string): Promise<Record<string, unknown>> {
    const db = this.d.db;
    const org = await db('organizations').where({ id: orgId }).first<OrgRow | undefined>();
    if (!org) throw notFound('organization');
    return db.transaction(async (trx) => {
      await this.store.ensurePlanCredits(trx, orgId);
      const balances = await this.d.ledger.liveBalances(trx, orgId, this.d.clock());
      const count = async (table: string, where: (q: Knex.QueryBuilder) => void) =>
        Number(
          (
            (await trx(table).where({ org_id: orgId }).modify(where).count({ n: '*' }).first()) as {
              n: string | number;
            }
          ).n,
        );
      const members = await count('users', (q) => q.whereNull('removed_at'));
      const workspaces = await count('workspaces', (q) => q.whereNull('archived_at'));
      const credits = balances.reduce((s, b) => s + b.fixes_remaining, 0);
      return {
        ...this.summary({ ...org, credits_remaining: credits, members }),
        billing_email: org.billing_email ?? null,
        trial_ends_at: iso(org.trial_ends_at),
        current_period_end: iso(org.current_period_end),
        workspaces,
        credits_by_source: creditsBySource(balances),
      };
    });
  }

  /**
   * Puts an organization on a plan without a payment: refused while a subscription runs (the
   * provider would bill the old plan). `none` takes a granted plan back.
   */
  async grantPlan(
    actor: SignedInActor,
    orgId: string,
    input: { plan: PlanId; reason: string },
  ): Promise<Record<string, unknown>> {
    await this.d.db.transaction(async (trx) => {
      const org = await this.store.org(trx, orgId, { lock: true });
      const status = org.subscription_status as SubscriptionStatus;
      if (org.plan === input.plan) return;
      if (LIVE_STATUSES.includes(status) || status === 'lifetime') {
        const why = `The organization pays for the ${org.plan} plan (${status}); it cancels that subscription first`;
        throw conflict('subscription_exists', why, { plan: org.plan, subscription_status: status });
      }
      await this.store.patchOrg(trx, orgId, { plan: input.plan, plan_activated_at: this.d.clock() });
      await this.d.audit.record(trx, {
        orgId,
        actor: asStaff(actor),
        action: 'billing.plan_granted',
        target: { type: 'organization', id: orgId },
        changes: { plan: { before: org.plan, after: input.plan } },
        metadata: { reason: input.reason },
      });
      const event = { org_id: orgId, plan: input.plan, subscription_status: status, previous_status: status };
      await this.d.outbox.add(trx, 'billing.subscription_changed', event, { orgId });
      await this.store.ensurePlanCredits(trx, orgId);
    });
    return this.organization(orgId);
  }

  /** Credit claims of every organization, newest first, with the organization's name. */
  async claimQueue(opts: {
    status?: 'pending' | 'approved' | 'rejected';
    cursor?: string;
    limit?: number;
  }): Promise<Page<Record<string, unknown>>> {
    const q = this.d
      .db('billing_claims as c')
      .join('organizations as o', 'o.id', 'c.org_id')
      .select('c.*', 'o.name as organization_name');
    if (opts.status) q.where('c.status', opts.status);
    const page = await paginate<ClaimRow & { organization_name: string }>(q, newestFirst('c'), opts);
    return {
      items: page.items.map((r) => ({ ...this.claims.json(r), organization_name: r.organization_name })),
      next_cursor: page.next_cursor,
    };
  }

  async decideClaim(
    actor: SignedInActor,
    claimId: string,
    input: { decision: 'approve' | 'reject'; note?: string | null },
  ): Promise<Record<string, unknown>> {
    const row: { org_id: string } | undefined = await this.d
      .db('billing_claims')
      .where({ id: claimId })
      .first('org_id');
    if (!row) throw notFound('claim');
    const claim = await this.claims.decide(
      row.org_id,
      claimId,
      input.decision === 'approve',
      asStaff(actor),
      input.note || undefined,
    );
    return this.claims.json(claim);
  }

  private summary(
    r: Pick<
      OrgListRow,
      'id' | 'name' | 'slug' | 'plan' | 'subscription_status' | 'created_at' | 'credits_remaining' | 'members'
    >,
  ) {
    return {
      id: r.id,
      name: r.name,
      slug: r.slug,
      plan: r.plan,
      subscription_status: r.subscription_status,
      credits_remaining: Number(r.credits_remaining ?? 0),
      members: Number(r.members),
      created_at: iso(r.created_at),
    };
  }
}
