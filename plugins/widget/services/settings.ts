import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import { newId } from '../../../core/data/ids.js';
import { conflict, httpError } from '../../../core/http/errors.js';
import { TEST_REPORT, localeOf } from '../texts.js';
import type { WidgetDeps, WidgetWorkspace } from './deps.js';
import type { WidgetIntake } from './intake.js';
import { normalizeOrigin } from '../../../core/http/cors.js';
import { captureOf, passiveOf, presentConfig } from './present.js';
import { newSecret, type SettingsRow, type SettingsStore } from './store.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { iso } from '../../../core/http/times.js';

export interface SettingsPatch {
  allowed_origins?: string[];
  capture?: { console?: boolean; network?: boolean; screenshot?: boolean; max_entries?: number };
  passive_collection?: { enabled?: boolean };
  rotate_identity_secret?: boolean;
}

const newPublicKey = () => `pk_${randomBytes(24).toString('base64url')}`;

/**
 * The widget settings of a workspace (owner, admin): allowed origins (on the workspace's widget
 * install), capture and passive collection, the identify secret, install status, a preview;
 * key rotation and the test report. Every change is audited in its transaction.
 */
export class WidgetSettingsService {
  constructor(
    private readonly d: WidgetDeps,
    private readonly store: SettingsStore,
    private readonly intake: WidgetIntake,
  ) {}

  async get(actor: SignedInActor, workspaceId: string): Promise<Record<string, unknown>> {
    const ws = await this.d.workspaces.open(actor.principal, workspaceId);
    const row = await this.d.db.transaction((trx) => this.store.ensure(trx, ws.org_id, ws.id));
    return this.out(ws, row);
  }

  async update(actor: SignedInActor, workspaceId: string, input: SettingsPatch): Promise<Record<string, unknown>> {
    const origins = input.allowed_origins?.map((o, i) => {
      const n = normalizeOrigin(o);
      if (!n)
        throw httpError(
          400,
          'invalid_request',
          `${o} is not an origin (scheme://host[:port], optionally https://*.domain)`,
          { errors: [{ path: `payload.allowed_origins.${i}`, message: 'must be an http(s) origin without a path' }] },
        );
      return n;
    });
    const { ws, row } = await this.d.db.transaction(async (trx) => {
      const before = await this.lockWorkspace(trx, actor, workspaceId);
      const current = await this.store.ensure(trx, before.org_id, before.id);
      const beforeView = this.auditView(before, current);
      let ws = before;
      if (origins) {
        const unique = [...new Set(origins)];
        const [updated] = (await trx('workspaces')
          .where({ org_id: before.org_id, id: before.id })
          .update({ widget_allowed_origins: JSON.stringify(unique), updated_at: new Date() })
          .returning('*')) as WidgetWorkspace[];
        ws = { ...before, ...updated, widget_allowed_origins: unique };
      }
      const patch: Partial<SettingsRow> = {};
      if (input.capture?.console !== undefined) patch.capture_console = input.capture.console;
      if (input.capture?.network !== undefined) patch.capture_network = input.capture.network;
      if (input.capture?.screenshot !== undefined) patch.capture_screenshot = input.capture.screenshot;
      if (input.capture?.max_entries !== undefined) patch.max_entries = input.capture.max_entries;
      if (input.passive_collection?.enabled !== undefined) patch.passive_enabled = input.passive_collection.enabled;
      if (input.rotate_identity_secret) patch.identity_secret_sealed = this.store.seal(before.id, newSecret());
      const row = Object.keys(patch).length ? await this.store.patch(trx, before.org_id, before.id, patch) : current;
      const changes = diffFields(beforeView, this.auditView(ws, row));
      if (input.rotate_identity_secret) changes.identity_secret_rotated = { before: false, after: true };
      await recordChanges(
        this.d,
        trx,
        {
          actor,
          action: 'widget.settings_updated',
          target: { type: 'workspace', id: ws.id },
          workspaceId: ws.id,
          changes,
        },
        'widget.settings_updated',
        { workspace_id: ws.id },
      );
      return { ws, row };
    });
    this.intake.forget(ws.id); // passive collection turned off stops this process's events at once
    return this.out(ws, row);
  }

  /** A new public key; the old one stops working at once here and within 2 s in other processes (WidgetIntake.eventsInstall). */
  async rotateKey(actor: SignedInActor, workspaceId: string): Promise<Record<string, unknown>> {
    const { ws, row } = await this.d.db.transaction(async (trx) => {
      const before = await this.lockWorkspace(trx, actor, workspaceId);
      const key = newPublicKey();
      const now = new Date();
      await trx('workspaces')
        .where({ org_id: before.org_id, id: before.id })
        .update({ widget_public_key: key, widget_key_revoked_at: null, updated_at: now });
      await this.store.ensure(trx, before.org_id, before.id);
      const row = await this.store.patch(trx, before.org_id, before.id, { key_rotated_at: now });
      await this.d.audit.record(trx, {
        actor,
        action: 'widget.key_rotated',
        target: { type: 'workspace', id: before.id },
        workspaceId: before.id,
        metadata: { previous_key_ending: before.widget_public_key?.slice(-4) ?? null, new_key_ending: key.slice(-4) },
      });
      await this.d.outbox.add(trx, 'widget.key_rotated', { workspace_id: before.id }, { orgId: before.org_id });
      return { ws: { ...before, widget_public_key: key, widget_key_revoked_at: null }, row };
    });
    this.intake.forget(ws.id);
    return this.out(ws, row);
  }

  /**
   * A report as the widget would send it, from the caller: the ticket is opened and closed in one
   * transaction, so the fix loop never diagnoses it (no tokens spent). Answers the Ticket.
   */
  async testReport(actor: SignedInActor, workspaceId: string): Promise<Record<string, unknown>> {
    const ticketId = await this.d.db.transaction(async (trx) => {
      const ws = await this.lockWorkspace(trx, actor, workspaceId);
      const locale = localeOf(actor.principal.locale) ?? localeOf(ws.locale) ?? 'en';
      const text = TEST_REPORT[locale];
      const now = new Date();
      const email = actor.principal.email?.toLowerCase() ?? null;
      const ticket = await this.d.tickets.createTicket(trx, {
        orgId: ws.org_id,
        workspaceId: ws.id,
        origin: 'widget',
        subject: text.subject,
        customerEmail: email,
        language: locale,
        labels: ['widget_test'],
        message: {
          from: email,
          bodyText: text.body,
          widgetContext: {
            console: [
              {
                level: 'error',
                message: 'TypeError: this is a test entry of the widget',
                timestamp: now.toISOString(),
              },
            ],
            network: [
              { method: 'GET', url: '/api/example', status: 500, duration_ms: 42, timestamp: now.toISOString() },
            ],
            browser: { user_agent: actor.userAgent ?? 'unknown' },
          },
        },
      });
      await this.d.tickets.transition(trx, ticket, 'close', { closed_at: now, close_reason: 'other' });
      await this.intake.insertReport(trx, {
        id: newId('wrp'),
        ws,
        ticketId: ticket.id,
        email,
        userId: null,
        identified: false,
        test: true,
        origin: null,
        pageUrl: null,
        created: now,
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'widget.test_report_sent',
        target: { type: 'ticket', id: ticket.id },
        workspaceId: ws.id,
      });
      return ticket.id;
    });
    return this.d.tickets.detail(actor.principal.orgId, ticketId);
  }

  private async lockWorkspace(trx: Knex, actor: SignedInActor, id: string): Promise<WidgetWorkspace> {
    const ws = await this.d.workspaces.open(actor.principal, id, trx);
    await trx('workspaces').where({ org_id: ws.org_id, id: ws.id }).forUpdate().select('id');
    if (ws.archived_at) throw conflict('workspace_archived', 'An archived workspace cannot change its widget');
    return ws;
  }

  private auditView(ws: WidgetWorkspace, row: SettingsRow): Record<string, unknown> {
    return {
      allowed_origins: ws.widget_allowed_origins ?? [],
      capture_console: row.capture_console,
      capture_network: row.capture_network,
      capture_screenshot: row.capture_screenshot,
      max_entries: row.max_entries,
      passive_collection_enabled: row.passive_enabled,
    };
  }

  /** WidgetSettings (fields designed in docs/widget.md). */
  private async out(ws: WidgetWorkspace, row: SettingsRow): Promise<Record<string, unknown>> {
    const base = this.d.config.server.publicBaseUrl.replace(/\/+$/, '');
    const seen = row.last_seen_at ? new Date(row.last_seen_at) : null;
    const recent = seen && Date.now() - seen.getTime() <= this.d.options.seenRecentlyHours * 3_600_000;
    const scriptUrl = `${base}/widget.js`;
    return {
      workspace_id: ws.id,
      public_key: ws.widget_public_key,
      allowed_origins: ws.widget_allowed_origins ?? [],
      capture: captureOf(row),
      passive_collection: passiveOf(row),
      identity_secret: this.store.identitySecret(row),
      install: {
        status: !seen ? 'never_seen' : recent ? 'active' : 'inactive',
        last_seen_at: seen?.toISOString() ?? null,
        last_seen_origin: row.last_seen_origin ?? null,
        seen_recently_hours: this.d.options.seenRecentlyHours,
      },
      script_url: scriptUrl,
      embed_snippet: `<script src="${scriptUrl}" data-key="${ws.widget_public_key ?? ''}" async></script>`,
      preview: await presentConfig(this.d.db, this.d.brand, ws, row, null),
      key_rotated_at: iso(row.key_rotated_at),
      updated_at: iso(row.updated_at),
    };
  }
}
