import type Boom from '@hapi/boom';
import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { ErrorGroup, type GroupTrigger } from '../models.js';
import { monthStart } from './error-group-overview.js';
import { maskText, normalizeMessage } from './grouping.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import type { Cradle } from '../../../core/kernel/cradle.js';

/** The parts of the tickets plugin's services this plugin calls (container keys ticketService, subscriberService). */
export type TicketServicePort = Pick<Cradle['ticketService'], 'createTicket'>;
export type SubscriberServicePort = Pick<Cradle['subscriberService'], 'subscribe'>;
/** Billing's planLimits (assert throws 402 plan_limit_reached with details.reason). */
export type PlanLimitsPort = Pick<Cradle['planLimits'], 'assert'>;
/** Billing's billingGate (checkJob tells whether the spend cap blocks jobs). */
export type BillingGatePort = Pick<Cradle['billingGate'], 'checkJob'>;
export type PlanCatalogPort = Pick<Cradle['planCatalog'], 'hasFeature'>;

export interface ProactiveTicketDeps {
  db: Knex;
  audit: AuditWriter;
  outbox: Outbox;
  tickets: () => TicketServicePort;
  subscribers: () => SubscriberServicePort | null;
  planLimits: () => PlanLimitsPort | null;
  billingGate: () => BillingGatePort | null;
  planCatalog: () => PlanCatalogPort | null;
}

export interface OpenOutcome {
  outcome: 'opened' | 'linked';
  ticketId: string;
}

const MESSAGES = {
  proactive_cap_reached: {
    en: 'This workspace has opened its monthly number of proactive tickets (proactive_monthly_fix_cap)',
    it: 'Questo workspace ha già aperto i ticket proattivi previsti per il mese (proactive_monthly_fix_cap)',
  },
  plan_feature: {
    en: 'The plan of this organization does not include proactive tickets',
    it: 'Il piano di questa organizzazione non include i ticket proattivi',
  },
  spend_cap: {
    en: 'The monthly spend cap is reached; proactive tickets wait until the next period or a higher cap',
    it: 'Il tetto di spesa mensile è raggiunto; i ticket proattivi attendono il prossimo periodo o un tetto più alto',
  },
} as const;

/**
 * Opens the proactive ticket of an error group (by a person, or by the trigger consumer): joins
 * an open ticket that already reports the problem (outcome linked), else checks the repository,
 * the workspace's monthly cap, the plan and the spend cap, and opens a ticket of origin
 * proactive. A cap or quota refusal holds the group (held_reason) and answers 402
 * plan_limit_reached; the group stays watching.
 */
export class ProactiveTickets {
  constructor(private readonly d: ProactiveTicketDeps) {}

  async open(
    orgId: string,
    groupId: string,
    who: SignedInActor | null,
    trigger: GroupTrigger | null = null,
  ): Promise<OpenOutcome> {
    if (who && !['owner', 'admin', 'reviewer'].includes(who.principal.role))
      throw forbidden('Client viewers cannot open tickets');
    const result = await this.d.db.transaction(async (trx) => {
      const g = await ErrorGroup.query(trx).forOrg(orgId).findById(groupId).forUpdate();
      if (!g) throw notFound('error group');
      if (g.status !== 'watching')
        throw conflict('group_not_watching', `The group is ${g.status}; only a watching group opens a ticket`, {
          status: g.status,
        });
      const now = new Date();

      const existing = await this.openTicketFor(trx, g);
      if (existing) {
        await ErrorGroup.query(trx)
          .forOrg(orgId)
          .patchAndFetchById(g.id, { status: 'ticketed', ticket_id: existing, held_reason: null, held_at: null });
        await this.record(trx, g, who, 'error_group.ticket_linked', existing, trigger);
        return { outcome: 'linked' as const, ticketId: existing };
      }

      const ws = (await trx('workspaces').where({ org_id: orgId, id: g.workspace_id }).first()) as
        { proactive_monthly_fix_cap: number; notify_affected_users: boolean; locale: string } | undefined;
      if (!ws) throw notFound('workspace');
      const repos = (await trx('repositories')
        .where({ org_id: orgId, workspace_id: g.workspace_id })
        .count({ n: '*' })
        .first()) as { n: number | string } | undefined;
      if (Number(repos?.n ?? 0) === 0)
        throw httpError(
          422,
          'no_repository',
          'Connect a repository to this workspace before opening proactive tickets',
        );

      const held = await this.refusal(trx, orgId, g.workspace_id, ws);
      if (held) {
        await ErrorGroup.query(trx)
          .forOrg(orgId)
          .patchAndFetchById(g.id, { held_reason: held.reason, held_at: g.held_at ?? now });
        // Answered, not thrown, so the hold above commits; thrown below.
        return httpError(402, 'plan_limit_reached', held.message, { ...held.details, reason: held.reason });
      }

      const ticket = await this.d.tickets().createTicket(trx, {
        orgId,
        workspaceId: g.workspace_id,
        origin: 'proactive',
        subject: maskText(g.title).slice(0, 200),
        errorGroupId: g.id,
        category: 'bug',
        priority: g.critical_path_hit ? 'high' : 'normal',
        labels: ['proactive', ...(trigger ? [trigger] : g.trigger ? [g.trigger] : [])],
        message: { bodyText: this.body(g) },
      });
      await ErrorGroup.query(trx)
        .forOrg(orgId)
        .patchAndFetchById(g.id, {
          status: 'ticketed',
          ticket_id: ticket.id,
          held_reason: null,
          held_at: null,
          ...(trigger ? { trigger } : {}),
        });
      if (ws.notify_affected_users) await this.subscribeAffected(trx, g, ticket);
      await this.record(trx, g, who, 'error_group.ticket_opened', ticket.id, trigger);
      return { outcome: 'opened' as const, ticketId: ticket.id };
    });
    if (result instanceof Error) throw result;
    return result;
  }

  /** Why the workspace may not open a proactive ticket now, or null. */
  private async refusal(
    trx: Knex,
    orgId: string,
    workspaceId: string,
    ws: { proactive_monthly_fix_cap: number; locale: string },
  ) {
    const lang = ws.locale === 'it' ? 'it' : 'en';
    const org: { plan: string } | undefined = await trx('organizations').where({ id: orgId }).first('plan');
    const catalog = this.d.planCatalog();
    if (catalog && !catalog.hasFeature(org?.plan, 'proactive')) {
      return {
        reason: 'plan_feature',
        message: MESSAGES.plan_feature[lang],
        details: { plan: org?.plan ?? 'none', feature: 'proactive' },
      };
    }
    const month = (await trx('tickets')
      .where({ org_id: orgId, workspace_id: workspaceId, origin: 'proactive' })
      .where('created_at', '>=', monthStart())
      .count({ n: '*' })
      .first()) as { n: number | string } | undefined;
    const used = Number(month?.n ?? 0);
    if (used >= ws.proactive_monthly_fix_cap) {
      return {
        reason: 'proactive_cap_reached',
        message: MESSAGES.proactive_cap_reached[lang],
        details: { limit: ws.proactive_monthly_fix_cap, used },
      };
    }
    const limits = this.d.planLimits();
    if (limits) {
      try {
        await limits.assert(trx, orgId, 'tickets_per_month', { workspaceId });
      } catch (err) {
        const e = err as Boom.Boom<{ details?: Record<string, unknown> } | undefined>;
        const details =
          (e.output?.payload as { details?: Record<string, unknown> } | undefined)?.details ?? e.data?.details;
        if (e.output?.statusCode !== 402) throw err;
        // details.reason is the limit's name (billing's limits.ts).
        const reason = typeof details?.reason === 'string' ? details.reason : 'tickets_per_month';
        return { reason, message: e.message, details: details ?? {} };
      }
    }
    const gate = this.d.billingGate();
    if (gate) {
      const decision = await gate.checkJob(trx, { orgId, workspaceId, kind: 'diagnosis', estimatedCostUsd: 0 });
      if (!decision.allowed && decision.reason === 'spend_cap')
        return { reason: 'spend_cap', message: MESSAGES.spend_cap[lang], details: decision.details ?? {} };
    }
    return null;
  }

  /** An open ticket that already reports this problem: the group's own, one linked to it, or a widget report with the same error. */
  private async openTicketFor(trx: Knex, g: ErrorGroup): Promise<string | null> {
    const linked: { id: string } | undefined = await trx('tickets')
      .where({ org_id: g.org_id, workspace_id: g.workspace_id })
      .whereNot('state', 'closed')
      .where((w) => {
        w.where('error_group_id', g.id);
        if (g.ticket_id) w.orWhere('id', g.ticket_id);
      })
      .orderBy('created_at')
      .first('id');
    if (linked) return linked.id;
    const reports: Array<{
      id: string;
      widget_context: { console?: Array<{ message?: string }> } | string | null;
    }> = await trx('ticket_messages as m')
      .join('tickets as t', 't.id', 'm.ticket_id')
      .where('t.org_id', g.org_id)
      .where('t.workspace_id', g.workspace_id)
      .whereNot('t.state', 'closed')
      .whereNotNull('m.widget_context')
      .where('t.created_at', '>', new Date(Date.now() - 30 * 86_400_000))
      .orderBy('t.created_at', 'desc')
      .limit(200)
      .select('t.id', 'm.widget_context');
    for (const r of reports) {
      const ctx =
        typeof r.widget_context === 'string'
          ? (JSON.parse(r.widget_context) as { console?: Array<{ message?: string }> })
          : r.widget_context;
      if (
        ctx?.console?.some(
          (c) => typeof c.message === 'string' && normalizeMessage(c.message).includes(g.normalized_message),
        )
      )
        return r.id;
    }
    return null;
  }

  private async subscribeAffected(trx: Knex, g: ErrorGroup, ticket: { id: string }): Promise<void> {
    const subs = this.d.subscribers();
    if (!subs) return;
    const rows: Array<{ user: { email?: string } | string; user_key: string | null }> = await trx('error_events')
      .where({ org_id: g.org_id, group_id: g.id })
      .whereNotNull('user')
      .orderBy('occurred_at', 'desc')
      .limit(500)
      .select('user', 'user_key');
    const seen = new Set<string>();
    const full = (await trx('tickets').where({ org_id: g.org_id, id: ticket.id }).first()) as Parameters<
      SubscriberServicePort['subscribe']
    >[1];
    for (const r of rows) {
      const u = typeof r.user === 'string' ? (JSON.parse(r.user) as { email?: string }) : r.user;
      const email = u?.email?.trim().toLowerCase();
      if (!email || seen.has(email) || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(email)) continue;
      seen.add(email);
      if (seen.size > 100) break;
      await subs.subscribe(trx, full, { email, source: 'proactive', userHash: r.user_key });
    }
  }

  private body(g: ErrorGroup): string {
    const inApp = (g.frames ?? []).filter((f) => f.in_app !== false).slice(0, 5);
    return [
      maskText(g.title),
      '',
      `Events: ${Number(g.event_count)} · affected users: ${g.affected_users}${g.release ? ` · latest release: ${g.release}` : ''}`,
      inApp.length
        ? `\nIn-app frames:\n${inApp.map((f) => `  at ${f.function ?? '?'} (${f.file}${f.line ? `:${f.line}` : ''}${f.column ? `:${f.column}` : ''})`).join('\n')}`
        : '',
    ]
      .join('\n')
      .trim();
  }

  private async record(
    trx: Knex,
    g: ErrorGroup,
    who: SignedInActor | null,
    action: string,
    ticketId: string,
    trigger: GroupTrigger | null,
  ): Promise<void> {
    await this.d.audit.record(trx, {
      orgId: g.org_id,
      actor: who ?? systemActor('proactive', g.org_id),
      action,
      target: { type: 'error_group', id: g.id },
      workspaceId: g.workspace_id,
      metadata: { ticket_id: ticketId, trigger },
    });
    await this.d.outbox.add(
      trx,
      'proactive.group_ticketed',
      {
        group_id: g.id,
        workspace_id: g.workspace_id,
        ticket_id: ticketId,
        outcome: action.endsWith('linked') ? 'linked' : 'opened',
      },
      { orgId: g.org_id },
    );
  }
}
