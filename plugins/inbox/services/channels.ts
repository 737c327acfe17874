import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import { mailDomainOf } from '../../../core/kernel/mail-domain.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { EmailDomain, InboundEmail, InboxChannel, type InboundStatus } from '../models/index.js';
import { ensureChannel } from './channel-store.js';
import { FORWARDING_TEST_HEADER } from './classify.js';
import { orgPlan, type InboxDeps, type InboxWorkspace } from './deps.js';
import { deliverToTicket, TicketQuotaReached } from './intake.js';
import { readMessage } from './mime.js';
import { InboundRouter } from './routing.js';
import { channelOut, inboundEmailOut, LOG_COLUMNS } from './serialize.js';
import { sendingSection, type SendingSection } from './sending.js';
import { FORWARDING_TEST_TEMPLATE } from './templates.js';
import type { SignedInActor } from '../../../core/contracts/index.js';

const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

function testCode(): string {
  const bytes = randomBytes(8);
  let out = '';
  for (let i = 0; i < 8; i++) out += CODE_ALPHABET[bytes[i] & 31];
  return `FT-${out}`;
}

/** The mail plugin's default sender (`plugins.mail.options.from`), as it computes it. */
export function defaultSender(d: Pick<InboxDeps, 'config'>): { address: string; name?: string } {
  const from = (
    d.config.plugins as Record<string, { options?: { from?: { address?: string; name?: string } } } | undefined>
  ).mail?.options?.from;
  if (from?.address) return { address: from.address, name: from.name };
  return { address: `no-reply@${mailDomainOf(d.config.server.publicBaseUrl)}`, name: 'Patchwell' };
}

/**
 * The channels section: the inbox of a workspace (switches, forwarding, its test), the inbound
 * log and the release of quarantined mail, plus the sending section other plugins read.
 */
export class ChannelService {
  constructor(private readonly d: InboxDeps) {}

  // ---- reads

  /** Domains of the workspace's brand, by purpose. */
  async domainsOf(
    db: Knex,
    ws: InboxWorkspace,
  ): Promise<{ sending: EmailDomain | null; receiving: EmailDomain | null }> {
    const key = await this.d.brandDirectory.keyFor(db, ws);
    const rows = await EmailDomain.query(db).forOrg(ws.org_id).where({ brand_profile_id: key.brandProfileId });
    return {
      sending: rows.find((r) => r.purpose === 'sending') ?? null,
      receiving: rows.find((r) => r.purpose === 'receiving') ?? null,
    };
  }

  /** How the workspace's replies leave (for the Channel answer and the white-label guard). */
  async sendingOf(db: Knex, ws: InboxWorkspace): Promise<SendingSection> {
    const [domains, plan, whiteLabel] = await Promise.all([
      this.domainsOf(db, ws),
      orgPlan(db, ws.org_id),
      this.d.brandDirectory.whiteLabel(db, ws),
    ]);
    return sendingSection({
      workspace: ws,
      sendingDomain: domains.sending,
      customDomainInPlan: this.d.planCatalog.hasFeature(plan, 'custom_sending_domain'),
      whiteLabel,
      defaultFrom: defaultSender(this.d),
    });
  }

  async view(db: Knex, ws: InboxWorkspace, channel?: InboxChannel): Promise<Record<string, unknown>> {
    const c = channel ?? (await ensureChannel(db, ws));
    const [domains, plan, whiteLabel] = await Promise.all([
      this.domainsOf(db, ws),
      orgPlan(db, ws.org_id),
      this.d.brandDirectory.whiteLabel(db, ws),
    ]);
    const customDomainInPlan = this.d.planCatalog.hasFeature(plan, 'custom_sending_domain');
    return channelOut({
      workspace: ws,
      channel: c,
      inboxInPlan: this.d.planCatalog.hasFeature(plan, 'email_channel'),
      customDomainInPlan,
      sending: sendingSection({
        workspace: ws,
        sendingDomain: domains.sending,
        customDomainInPlan,
        whiteLabel,
        defaultFrom: defaultSender(this.d),
      }),
      sendingDomain: domains.sending,
      receivingDomain: domains.receiving,
      whiteLabel: whiteLabel.whiteLabel,
    });
  }

  async get(principal: Principal, workspaceId: string): Promise<Record<string, unknown>> {
    const ws = await this.d.workspaces.open(principal, workspaceId);
    return this.view(this.d.db, ws);
  }

  // ---- changes

  async update(
    actor: SignedInActor,
    workspaceId: string,
    input: { enabled?: boolean; accept_list_mail?: boolean },
  ): Promise<Record<string, unknown>> {
    const ws = await this.d.workspaces.open(actor.principal, workspaceId);
    await ensureChannel(this.d.db, ws);
    return this.d.db.transaction(async (trx) => {
      const before = await ensureChannel(trx, ws, { forUpdate: true });
      if (input.enabled === true && (ws.archived_at || !ws.mailbox_enabled))
        throw conflict('workspace_archived', 'The mailbox of an archived workspace cannot be turned on');
      const changes = diffFields(
        { enabled: before.enabled, accept_list_mail: before.accept_list_mail },
        { enabled: before.enabled, accept_list_mail: before.accept_list_mail, ...input },
        Object.keys(input),
      );
      if (Object.keys(changes).length === 0) return this.view(trx, ws, before);
      const after = await InboxChannel.query(trx).forOrg(ws.org_id).patchAndFetchById(before.id, input);
      await recordChanges(
        this.d,
        trx,
        {
          actor,
          action: 'channel.updated',
          target: { type: 'channel', id: before.id },
          workspaceId: ws.id,
          changes,
        },
        'inbox.channel_updated',
        { workspace_id: ws.id, channel_id: before.id },
      );
      return this.view(trx, ws, after);
    });
  }

  async setForwarding(
    actor: SignedInActor,
    workspaceId: string,
    input: { address: string; provider: 'mail_a' | 'mail_b' | 'other' },
  ): Promise<Record<string, unknown>> {
    const ws = await this.d.workspaces.open(actor.principal, workspaceId);
    const address = input.address.trim().toLowerCase();
    const domain = address.split('@')[1] ?? '';
    if (domain === this.d.workspaces.inboundDomain || address === ws.inbound_address?.toLowerCase()) {
      throw httpError(
        400,
        'invalid_request',
        'The forwarding address is your own support address, not the inbound address',
        {
          errors: [
            {
              path: 'payload.address',
              message: 'must be your support address (the one that forwards to the inbound address)',
            },
          ],
        },
      );
    }
    await ensureChannel(this.d.db, ws);
    return this.d.db.transaction(async (trx) => {
      const before = await ensureChannel(trx, ws, { forUpdate: true });
      const now = new Date();
      const same = before.forwarding_address === address;
      const pending = before.pending_gmail_confirmation;
      const patch: Partial<InboxChannel> = same
        ? { forwarding_provider: input.provider }
        : {
            forwarding_address: address,
            forwarding_provider: input.provider,
            forwarding_added_at: now,
            forwarding_verified_at: null,
            forwarding_tested_at: null,
            last_forwarded_at: null,
            test_code: null,
            test_sent_at: null,
            gmail_confirmation: pending && pending.requested_by === address ? pending : null,
          };
      const changes = diffFields(
        { address: before.forwarding_address, provider: before.forwarding_provider },
        { address, provider: input.provider },
      );
      if (Object.keys(changes).length === 0) return this.view(trx, ws, before);
      const after = await InboxChannel.query(trx).forOrg(ws.org_id).patchAndFetchById(before.id, patch);
      await this.d.audit.record(trx, {
        actor,
        action: 'channel.forwarding_set',
        target: { type: 'channel', id: before.id },
        workspaceId: ws.id,
        changes,
      });
      return this.view(trx, ws, after);
    });
  }

  async removeForwarding(actor: SignedInActor, workspaceId: string): Promise<Record<string, unknown>> {
    const ws = await this.d.workspaces.open(actor.principal, workspaceId);
    await ensureChannel(this.d.db, ws);
    return this.d.db.transaction(async (trx) => {
      const before = await ensureChannel(trx, ws, { forUpdate: true });
      if (!before.forwarding_address) return this.view(trx, ws, before);
      const after = await InboxChannel.query(trx).forOrg(ws.org_id).patchAndFetchById(before.id, {
        forwarding_address: null,
        forwarding_provider: null,
        forwarding_added_at: null,
        forwarding_verified_at: null,
        forwarding_tested_at: null,
        last_forwarded_at: null,
        test_code: null,
        test_sent_at: null,
        gmail_confirmation: null,
        pending_gmail_confirmation: null,
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'channel.forwarding_removed',
        target: { type: 'channel', id: before.id },
        workspaceId: ws.id,
        changes: diffFields(
          { address: before.forwarding_address, provider: before.forwarding_provider },
          { address: null, provider: null },
        ),
      });
      return this.view(trx, ws, after);
    });
  }

  /**
   * Emails a test with a fresh code to the forwarding address; when it comes back through the
   * forwarding, the pipeline marks the forwarding verified. One a minute per workspace (429).
   */
  async sendForwardingTest(actor: SignedInActor, workspaceId: string): Promise<Record<string, unknown>> {
    const ws = await this.d.workspaces.open(actor.principal, workspaceId);
    const channel = await ensureChannel(this.d.db, ws);
    if (!channel.forwarding_address)
      throw conflict('forwarding_not_set', 'Set the forwarding address before testing it');
    if (!ws.inbound_address || ws.archived_at)
      throw conflict('workspace_archived', 'An archived workspace receives no mail');
    await this.d.rateLimiter.consume(
      `inbox:forwarding-test:${ws.id}`,
      1,
      60_000,
      'One forwarding test a minute; retry later',
    );
    const code = testCode();
    return this.d.db.transaction(async (trx) => {
      const before = await ensureChannel(trx, ws, { forUpdate: true });
      await this.d.mailer.enqueue(trx, {
        orgId: ws.org_id,
        template: FORWARDING_TEST_TEMPLATE,
        locale: ws.locale === 'it' ? 'it' : 'en',
        to: before.forwarding_address!,
        data: { code, address: before.forwarding_address!, workspace: ws.name, inbound_address: ws.inbound_address! },
        headers: { [FORWARDING_TEST_HEADER]: code },
      });
      const after = await InboxChannel.query(trx)
        .forOrg(ws.org_id)
        .patchAndFetchById(before.id, { test_code: code, test_sent_at: new Date() });
      await this.d.audit.record(trx, {
        actor,
        action: 'channel.forwarding_test_sent',
        target: { type: 'channel', id: before.id },
        workspaceId: ws.id,
        metadata: { to: before.forwarding_address },
      });
      return this.view(trx, ws, after);
    });
  }

  // ---- the inbound log

  async log(
    principal: Principal,
    workspaceId: string,
    q: { status?: InboundStatus; cursor?: string; limit: number },
  ): Promise<Page<Record<string, unknown>>> {
    const ws = await this.d.workspaces.open(principal, workspaceId);
    const query = InboundEmail.query(this.d.db)
      .forOrg(ws.org_id)
      .where('inbox_emails.workspace_id', ws.id)
      .select([...LOG_COLUMNS, this.d.db.raw('(inbox_emails.raw is not null) as has_raw')]);
    if (q.status) query.where('inbox_emails.status', q.status);
    const page = await paginate<InboundEmail & Record<string, unknown>>(
      query,
      [
        { column: 'inbox_emails.received_at', direction: 'desc', type: 'date' },
        { column: 'inbox_emails.id', direction: 'desc', type: 'string' },
      ],
      { cursor: q.cursor, limit: q.limit },
    );
    return { items: page.items.map((e) => inboundEmailOut(e)), next_cursor: page.next_cursor };
  }

  /**
   * Lets a quarantined email through: it opens a ticket or joins the one it continues (reply
   * address, In-Reply-To, References), exactly as if it had passed on arrival.
   */
  async release(
    actor: SignedInActor,
    workspaceId: string,
    provider: string,
    emailId: string,
  ): Promise<{ ticket_id: string; created: boolean }> {
    const ws = await this.d.workspaces.open(actor.principal, workspaceId);
    const row = await InboundEmail.query(this.d.db)
      .forOrg(ws.org_id)
      .where({ workspace_id: ws.id, provider, id: emailId })
      .limit(1)
      .first();
    if (!row) throw notFound('inbound email');
    if (row.status !== 'quarantined')
      throw conflict('not_quarantined', `Only a quarantined email can be released; this one is ${row.status}`, {
        status: row.status,
      });
    if (!row.raw) throw conflict('raw_expired', 'The message was kept for the quarantine period only and is gone');
    // After the checks: a refused release stores nothing (not even the workspace's channel row).
    const channel = await ensureChannel(this.d.db, ws);
    const facts = await readMessage(row.raw);
    const route = await new InboundRouter(this.d.db, this.d.workspaces, () => this.d.tickets).route(row.recipient);
    const ticket = route && route.workspace.id === ws.id ? route.ticket : null;
    try {
      return await this.d.db.transaction(async (trx) => {
        const locked = await InboundEmail.query(trx).forOrg(ws.org_id).findById(row.id).forUpdate();
        if (!locked || locked.status !== 'quarantined')
          throw conflict('not_quarantined', 'This email was released meanwhile');
        const out = await deliverToTicket(trx, this.d, {
          workspace: ws,
          channel,
          facts,
          ticket,
          receivedAt: new Date(),
        });
        await InboundEmail.query(trx)
          .forOrg(ws.org_id)
          .patch({
            status: 'released',
            ticket_id: out.ticketId,
            ticket_created: out.created,
            released_at: new Date(),
            released_by_user_id: actor.principal.userId,
            raw: null,
          })
          .where('id', row.id);
        await this.d.audit.record(trx, {
          actor,
          action: 'inbound_email.released',
          target: { type: 'inbound_email', id: row.id },
          workspaceId: ws.id,
          changes: diffFields(
            { status: 'quarantined', ticket_id: null },
            { status: 'released', ticket_id: out.ticketId },
          ),
          metadata: { reason: row.reason, created: out.created },
        });
        await this.d.outbox.add(
          trx,
          'inbox.email_received',
          {
            email_id: row.id,
            workspace_id: ws.id,
            status: 'released',
            reason: row.reason,
            ticket_id: out.ticketId,
            created: out.created,
          },
          { orgId: ws.org_id },
        );
        return { ticket_id: out.ticketId, created: out.created };
      });
    } catch (err) {
      if (err instanceof TicketQuotaReached)
        throw httpError(402, 'plan_limit_reached', "The plan's tickets of this month are used up", {
          reason: 'tickets_per_month',
        });
      throw err;
    }
  }
}
