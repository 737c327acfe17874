import { asValue } from 'awilix';
import { cradleView, optional } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { widgetOptionsSchema, type WidgetOptions } from './options.js';
import { assetRoutes } from './routes/assets.js';
import { publicWidgetRoutes } from './routes/public.js';
import { settingsRoutes } from './routes/settings.js';
import type { WidgetDeps } from './services/deps.js';
import { WidgetIdentities } from './services/identities.js';
import { WidgetIntake } from './services/intake.js';
import { WidgetSettingsService } from './services/settings.js';
import { SettingsStore } from './services/store.js';

/**
 * The embeddable widget: the widget section (8 operations: the public config, events, identify
 * and reports, and the workspace's widget settings), the script at GET /widget.js and the CORS
 * preflight of the public operations. Builds on the widget install the workspaces plugin creates
 * with every workspace (public key, allowed origins). See docs/widget.md.
 *
 * Container entries: `widgetIntake`, `widgetIdentities`, `widgetSettings`.
 */
export default definePlugin<WidgetOptions>({
  name: 'widget',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'tickets'],
  options: widgetOptionsSchema,
  register(ctx) {
    const { container, config, options } = ctx;
    const deps = cradleView<WidgetDeps>(container, {
      db: 'db',
      audit: 'audit',
      outbox: 'outbox',
      secretBox: 'secretBox',
      rateLimiter: 'rateLimiter',
      config: () => config,
      options: () => options,
      log: () => ctx.log,
      workspaces: 'workspaceService',
      tickets: 'ticketService',
      // Optional plugins, looked up at each use (they may register after this one).
      errorIngest: () => optional(container, 'errorIngest') ?? null,
      brand: () => optional(container, 'brandService') ?? null,
      planLimits: () => optional(container, 'planLimits') ?? null,
    });
    const store = new SettingsStore(deps.secretBox);
    const identities = new WidgetIdentities(deps, store);
    const intake = new WidgetIntake(deps, store, identities);
    const settings = new WidgetSettingsService(deps, store, intake);
    ctx.provide({
      widgetIntake: asValue(intake),
      widgetIdentities: asValue(identities),
      widgetSettings: asValue(settings),
    });

    // Erasure of an end user (privacy plugin) reaches the identities and reports; declared at
    // start, when every plugin has registered.
    ctx.onStart(() => {
      const personalData = optional(container, 'personalData') ?? null;
      personalData?.declare({
        plugin: 'widget',
        table: 'widget_identities',
        emailColumns: ['email'],
        userIdColumns: ['user_id'],
        onMatch: 'delete',
      });
      personalData?.declare({
        plugin: 'widget',
        table: 'widget_reports',
        emailColumns: ['email'],
        userIdColumns: ['user_id'],
        onMatch: 'delete',
      });
    });

    ctx.routes(
      publicWidgetRoutes(
        () => intake,
        () => identities,
        options.maxReportBodyBytes,
      ),
    );
    ctx.routes(settingsRoutes(() => settings, container.cradle.ticketSchema));
    ctx.server.route(
      assetRoutes(() => intake, new URL('./client/widget.js', import.meta.url), options.scriptMaxAgeSeconds),
    );
  },
});
