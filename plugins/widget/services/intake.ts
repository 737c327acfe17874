import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { TtlMap } from '../../../core/data/ttl-map.js';
import { httpError } from '../../../core/http/errors.js';
import { localeOf } from '../texts.js';
import { browserOf, sanitizeContext, type ReportContextInput } from './context.js';
import type { WidgetDeps, WidgetWorkspace } from './deps.js';
import { originAllowed } from '../../../core/http/cors.js';
import { presentConfig } from './present.js';
import type { WidgetIdentities } from './identities.js';
import { refuse } from './refusals.js';
import { decodeScreenshot, type Screenshot } from './screenshot.js';
import type { SettingsRow, SettingsStore } from './store.js';

/** Where a public request came from. */
export interface CallerMeta {
  origin: string | undefined;
  ip: string | null;
  userAgent: string | undefined;
}

export interface EventInput {
  type?: string;
  message: string;
  level?: 'fatal' | 'error' | 'warning' | 'info' | 'debug';
  stack?: string;
  url?: string;
  release?: string;
  environment?: string;
  occurred_at?: string;
  fingerprint?: string;
}

export interface EventsInput {
  consent: boolean;
  user_id?: string;
  events: EventInput[];
  browser?: Record<string, unknown>;
}

export interface ReportInput {
  email: string;
  message: string;
  name?: string;
  user_id?: string;
  user_hash?: string;
  locale?: string;
  technical_consent?: boolean;
  screenshot_consent?: boolean;
  screenshot?: string;
  context?: ReportContextInput;
}

/** How long the events path trusts what it read (settings with passive collection on, a user id without identity). */
export const EVENTS_CACHE_MS = 2_000;
export const CACHE_MAX = 10_000;

/**
 * The public side of the widget (section widget, auth false): the configuration for a public
 * key, passive error events into the proactive pipeline, and reports that open tickets of origin
 * widget (identify is WidgetIdentities'). Every call names the install by its public key; browsers are held
 * to the install's allowed origins.
 */
export class WidgetIntake {
  // The events path runs per page error: it keeps what it reads for EVENTS_CACHE_MS instead of
  // reading it per request (see docs/proactive.md, "Per-event and per-request work").
  private readonly passiveOn = new TtlMap<string, SettingsRow>(EVENTS_CACHE_MS, CACHE_MAX);
  /** Live installs by public key, for the events path only (unknown keys are not kept). */
  private readonly installs = new TtlMap<string, WidgetWorkspace>(EVENTS_CACHE_MS, CACHE_MAX);

  constructor(
    private readonly d: WidgetDeps,
    private readonly store: SettingsStore,
    private readonly identities: WidgetIdentities,
  ) {}

  /** Forgets what the events path cached of a workspace (after a settings change or a key rotation in this process). */
  forget(workspaceId: string): void {
    this.passiveOn.delete(workspaceId);
    this.installs.deleteWhere((ws) => ws.id === workspaceId);
  }

  /** The install of a live public key; 404 for an unknown, rotated or revoked key. */
  async install(key: string | undefined): Promise<WidgetWorkspace> {
    if (!key)
      throw httpError(400, 'invalid_request', 'The widget key is missing: send X-Widget-Key or public_key', {
        errors: [{ path: 'public_key', message: 'required' }],
      });
    const ws = await this.d.workspaces.findByWidgetKey(key);
    if (!ws) throw refuse(404, 'not_found', 'unknown_key');
    return ws;
  }

  /**
   * `install` for the events path, which runs per page error: a live install is kept for
   * EVENTS_CACHE_MS. A rotated key or a changed install stops at once in this process (forget)
   * and within that time in the others, as a connector's rotated ingest token does.
   */
  async eventsInstall(key: string | undefined): Promise<WidgetWorkspace> {
    const hit = key ? this.installs.get(key) : undefined;
    return hit ?? this.installs.set(key!, await this.install(key));
  }

  /** Whether the browser's Origin may use the install; writes from another origin answer 403. */
  admit(ws: WidgetWorkspace, meta: CallerMeta, write: boolean): boolean {
    if (!meta.origin) return false;
    const ok = originAllowed(meta.origin, ws.widget_allowed_origins ?? []);
    if (!ok && write)
      throw refuse(403, 'origin_not_allowed', 'origin_not_allowed', { origin: meta.origin.slice(0, 200) });
    return ok;
  }

  async config(ws: WidgetWorkspace, meta: CallerMeta, locale: string | undefined): Promise<Record<string, unknown>> {
    const settings = await this.store.read(this.d.db, ws.org_id, ws.id);
    if (meta.origin && originAllowed(meta.origin, ws.widget_allowed_origins ?? [])) {
      try {
        await this.store.markSeen(this.d.db, ws.org_id, ws.id, new URL(meta.origin).origin);
      } catch (err) {
        this.d.log.warn({ err, workspace_id: ws.id }, 'widget: could not record the install as seen');
      }
    }
    return presentConfig(this.d.db, this.d.brand, ws, settings, locale);
  }

  /** Passive error events (window.onerror, unhandledrejection) with the host site's consent. */
  async events(
    ws: WidgetWorkspace,
    input: EventsInput,
    meta: CallerMeta,
  ): Promise<{ accepted: number; duplicates: number }> {
    if (input.consent !== true) throw refuse(403, 'consent_required', 'host_consent', { consent: 'host' });
    const settings = await this.eventSettings(ws);
    const ingest = this.d.errorIngest;
    if (!settings.passive_enabled || !ingest) throw refuse(403, 'passive_collection_disabled', 'passive_disabled');
    await this.consumeEvents(ws);
    const email = input.user_id ? await this.identities.cachedEmailOfUser(ws, input.user_id) : null;
    const browser = browserOf(input.browser, meta.userAgent);
    const now = new Date().toISOString();
    const outcomes = await ingest.submit(
      input.events.map((e) => ({
        orgId: ws.org_id,
        workspaceId: ws.id,
        connectorId: null,
        source: 'widget' as const,
        event: {
          type: e.type || 'Error',
          message: e.message,
          level: e.level ?? 'error',
          ...(e.stack ? { stack: e.stack } : {}),
          ...(e.url ? { url: e.url } : {}),
          ...(e.release ? { release: e.release } : {}),
          ...(e.environment ? { environment: e.environment } : {}),
          ...(e.fingerprint ? { fingerprint: e.fingerprint } : {}),
          ...(input.user_id ? { user: { id: input.user_id, ...(email ? { email } : {}) } } : {}),
          ...(browser
            ? {
                browser: {
                  user_agent: browser.user_agent,
                  name: browser.name,
                  version: browser.version,
                  os: browser.os,
                },
              }
            : {}),
          occurred_at: e.occurred_at ?? now,
        },
      })),
    );
    return {
      accepted: outcomes.filter((o) => !o.duplicate).length,
      duplicates: outcomes.filter((o) => o.duplicate).length,
    };
  }

  /** A report from the widget's form: a ticket of origin widget with its technical context and screenshot. */
  async report(ws: WidgetWorkspace, input: ReportInput, meta: CallerMeta): Promise<Record<string, unknown>> {
    const settings = await this.store.read(this.d.db, ws.org_id, ws.id);
    let screenshot: Screenshot | null = null;
    if (input.screenshot) {
      if (input.screenshot_consent !== true)
        throw refuse(403, 'consent_required', 'screenshot_consent', { consent: 'screenshot' });
      if (!settings.capture_screenshot)
        throw httpError(422, 'screenshot_not_accepted', 'This widget does not accept screenshots', {
          message_it: 'Questo widget non accetta screenshot',
        });
      screenshot = decodeScreenshot(input.screenshot, this.d.options.maxScreenshotBytes);
    }
    await this.d.rateLimiter.consume(
      `widget-reports:${ws.id}`,
      this.d.options.reportsPerMinute,
      60_000,
      'Too many reports; retry later',
    );
    if (meta.ip)
      await this.d.rateLimiter.consume(
        `widget-reports:ip:${meta.ip}`,
        this.d.options.reportsPerIpPerMinute,
        60_000,
        'Too many reports from this address; retry later',
      );

    const email = input.email.trim().toLowerCase();
    const identified = input.user_hash
      ? await this.identities.hashValid(ws, email, input.user_hash)
      : input.user_id
        ? (await this.identities.emailOfUser(ws, input.user_id)) === email
        : false;
    const technical = input.technical_consent === true;
    const context = technical
      ? sanitizeContext(input.context, {
          maxEntries: settings.max_entries,
          console: settings.capture_console,
          network: settings.capture_network,
          userAgent: meta.userAgent,
        })
      : sanitizeContext(
          { url: input.context?.url, release: input.context?.release },
          { maxEntries: 0, console: false, network: false },
        );
    if (!technical) delete context.browser;
    const firstLine = input.message.trim().split('\n')[0].trim();
    const subject = firstLine.length > 120 ? `${firstLine.slice(0, 117)}…` : firstLine || 'Widget report';
    const language = localeOf(input.locale);

    return this.d.db.transaction(async (trx) => {
      if (this.d.planLimits)
        await this.d.planLimits.assert(trx, ws.org_id, 'tickets_per_month', { workspaceId: ws.id });
      const ticket = await this.d.tickets.createTicket(trx, {
        orgId: ws.org_id,
        workspaceId: ws.id,
        origin: 'widget',
        subject,
        customerEmail: email,
        customerName: input.name?.trim() || null,
        language,
        message: {
          from: email,
          fromName: input.name?.trim() || null,
          bodyText: input.message,
          widgetContext: context,
          screenshot,
        },
      });
      const id = newId('wrp');
      const created = new Date();
      await this.insertReport(trx, {
        id,
        ws,
        ticketId: ticket.id,
        email,
        userId: input.user_id ?? null,
        identified,
        test: false,
        origin: meta.origin ?? null,
        pageUrl: context.url ?? null,
        created,
      });
      return {
        id,
        ticket_id: ticket.id,
        status_url: this.d.tickets.statusUrl(ticket),
        identified,
        created_at: created.toISOString(),
      };
    });
  }

  async insertReport(
    trx: Knex,
    r: {
      id: string;
      ws: WidgetWorkspace;
      ticketId: string;
      email: string | null;
      userId: string | null;
      identified: boolean;
      test: boolean;
      origin: string | null;
      pageUrl: string | null;
      created: Date;
    },
  ): Promise<void> {
    await trx('widget_reports').insert({
      id: r.id,
      org_id: r.ws.org_id,
      workspace_id: r.ws.id,
      ticket_id: r.ticketId,
      email: r.email,
      user_id: r.userId,
      identified: r.identified,
      test: r.test,
      origin: r.origin?.slice(0, 300) ?? null,
      page_url: r.pageUrl?.slice(0, 2000) ?? null,
      created_at: r.created,
    });
  }

  /**
   * The widget settings for the events path. Only "passive collection on" is kept (for
   * EVENTS_CACHE_MS): turning it on works at the next event; turning it off stops events within
   * that time (at once in this process when the settings service calls forget).
   */
  private async eventSettings(ws: WidgetWorkspace): Promise<SettingsRow> {
    const hit = this.passiveOn.get(ws.id);
    if (hit) return hit;
    const settings = await this.store.read(this.d.db, ws.org_id, ws.id);
    if (settings.passive_enabled) this.passiveOn.set(ws.id, settings);
    else this.passiveOn.delete(ws.id);
    return settings;
  }

  /**
   * Counts a request against the install's shared limit (rate_limits in Postgres), reserving
   * hits in chunks of a twentieth of the limit: one upsert per chunk on the install's row, not one
   * per request. Once the limit answered 429, this process answers 429 itself until the window
   * ends, without a query.
   */
  private async consumeEvents(ws: WidgetWorkspace): Promise<void> {
    const limit = this.d.options.eventsPerMinute;
    await this.d.rateLimiter.consume(`widget-events:${ws.id}`, limit, 60_000, 'Too many widget events; retry later', {
      reserve: Math.min(100, Math.ceil(limit / 20)),
    });
  }
}
