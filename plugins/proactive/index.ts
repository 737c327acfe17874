import { optional, type Cradle } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { asValue } from 'awilix';
import { proactiveOptionsSchema, type ProactiveOptions } from './options.js';
import { connectorRoutes } from './routes/connectors.js';
import { errorGroupRoutes } from './routes/error-groups.js';
import { errorTrackerWebhookRoutes } from './routes/error-tracker-webhook.js';
import { patternRoutes } from './routes/patterns.js';
import { ingestRoutes } from './routes/ingest.js';
import { sourceMapRoutes } from './routes/sourcemaps.js';
import { ConnectorService } from './services/connectors.js';
import { ErrorGroupService } from './services/error-groups.js';
import { ErrorTrackerWebhook } from './services/error-tracker-webhook.js';
import { PatternService } from './services/patterns.js';
import { ConnectorPoller, POLL_SWEEP_MS } from './services/poller.js';
import { GroupWriter } from './services/group-writer.js';
import { IngestQueue } from './services/ingest-queue.js';
import { IngestService } from './services/ingest.js';
import { ProactiveTickets } from './services/proactive-tickets.js';
import { declarePersonalData } from './services/personal-data.js';
import { purgeExpiredEvents } from './services/retention.js';
import { SourceMapService } from './services/sourcemaps.js';
import { Symbolicator } from './services/symbolicator.js';
import type { GroupTrigger } from './models.js';

/**
 * Proactive: log connectors (connectors-admin), pushes into them (ingest), error events grouped
 * into error groups (error-groups) that open proactive tickets through the tickets plugin, and
 * the retention purge. docs/proactive.md describes it.
 *
 * Container keys it provides: `errorIngest` (the ingest queue: `submit(events)`, used by the
 * widget plugin for passive errors), `errorGroupService`, `connectorService`, `proactiveTickets`,
 * `connectorPoller`, `patternService` and `patternMatcher` (`matchTicket(orgId, ticketId, limit)`
 * for diagnosis).
 */
export default definePlugin<ProactiveOptions>({
  name: 'proactive',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'tickets'],
  uses: ['connector'],
  options: proactiveOptionsSchema,
  register(ctx) {
    const { container, options, config } = ctx;
    const { db, outbox, audit, secretBox } = container.cradle;
    // Another plugin's key, read at each use: undefined (null here) while its plugin is off.
    const later =
      <K extends keyof Cradle>(key: K) =>
      () =>
        optional(container, key) ?? null;
    const adapters = () => container.cradle.connectorAdapters;
    const workspaces = () => container.cradle.workspaceService;
    const publicBaseUrl = config.server.publicBaseUrl.replace(/\/+$/, '');

    const symbolicator = new Symbolicator(db, options.sourcemaps, ctx.log);
    const queue = new IngestQueue(
      db,
      new GroupWriter(outbox),
      { ...options.ingest, settingsCacheMs: options.ingest.connectorCacheMs },
      ctx.log,
      symbolicator,
    );
    const sourceMaps = new SourceMapService({ db, audit, workspaces, symbolicator, limits: options.sourcemaps });
    const ingest = new IngestService(
      db,
      queue,
      adapters,
      options.ingest.connectorCacheMs,
      options.ingest.maxSentryBodyBytes,
    );
    const connectors = new ConnectorService({
      db,
      secretBox,
      audit,
      adapters,
      workspaces,
      publicBaseUrl,
      options,
      onChanged: (id) => ingest.forget(id),
    });
    const catalog = later('planCatalog');
    const groups = new ErrorGroupService({
      db,
      audit,
      outbox,
      workspaces,
      sampleEvents: options.sampleEvents,
      planAllows: async (trx, orgId) => {
        const org: { plan: string } | undefined = await trx('organizations').where({ id: orgId }).first('plan');
        return catalog()?.hasFeature(org?.plan, 'proactive') ?? true;
      },
    });
    const tickets = new ProactiveTickets({
      db,
      audit,
      outbox,
      tickets: () => container.cradle.ticketService,
      subscribers: later('subscriberService'),
      planLimits: later('planLimits'),
      billingGate: later('billingGate'),
      planCatalog: catalog,
    });

    const webhook = new ErrorTrackerWebhook({ db, queue, connectors: () => connectors, adapters });
    const poller = new ConnectorPoller({ db, queue, connectors: () => connectors, adapters, log: ctx.log });
    const patterns = new PatternService({ db, audit });

    ctx.provide({
      connectorPoller: asValue(poller),
      patternService: asValue(patterns),
      patternMatcher: asValue(patterns),
      errorIngest: asValue(queue),
      connectorService: asValue(connectors),
      errorGroupService: asValue(groups),
      proactiveTickets: asValue(tickets),
      sourceMapService: asValue(sourceMaps),
    });
    ctx.routes([
      ...connectorRoutes(() => connectors),
      ...ingestRoutes(() => ingest, options.ingest),
      ...errorGroupRoutes(
        () => groups,
        () => tickets,
      ),
      ...sourceMapRoutes(() => sourceMaps, options.sourcemaps),
      ...errorTrackerWebhookRoutes(() => webhook, options.ingest.maxBodyBytes),
      ...patternRoutes(() => patterns),
    ]);

    // A trigger fired during ingest: open (or join) the proactive ticket. Refusals are answers,
    // not failures: a cap holds the group, a missing repository or a moved group ends here.
    ctx.consume(
      'open-triggered-tickets',
      ['proactive.group_triggered'],
      async (message) => {
        const p = message.payload as { group_id?: string; trigger?: GroupTrigger };
        if (!p.group_id || !message.orgId) return;
        try {
          await tickets.open(message.orgId, p.group_id, null, p.trigger ?? null);
        } catch (err) {
          const status = (err as { output?: { statusCode?: number } }).output?.statusCode;
          if (status && status >= 400 && status < 500) {
            ctx.log.info(
              { group_id: p.group_id, status, code: (err as { data?: { code?: string } }).data?.code },
              'proactive: triggered group not ticketed',
            );
            return;
          }
          throw err;
        }
      },
      { idempotent: false },
    );

    // Connectors of polling kinds, by next_poll_at, with back-off on errors (docs/proactive.md).
    ctx.schedule('poll-connectors', { everyMs: POLL_SWEEP_MS }, async () => {
      await poller.runOnce();
    });
    ctx.schedule('purge-expired-events', { everyMs: options.retentionSweepMs }, async () => {
      await purgeExpiredEvents(db, new Date());
    });
    // Erasure of an end user (privacy plugin) reaches the events and the user keys that count them;
    // declared at start, when every plugin has registered.
    ctx.onStart(() => {
      const registry = optional(container, 'personalData');
      if (registry) declarePersonalData(registry);
    });
    ctx.onStop(async () => {
      await queue.stop();
      symbolicator.stop();
    });
  },
});
