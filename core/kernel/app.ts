import Hapi, { type Server, type Request } from '@hapi/hapi';
import { asValue, createContainer, InjectionMode } from 'awilix';
import HapiPino from 'hapi-pino';
import type { Logger } from 'pino';
import { Model } from 'objection';
import type { AppConfig } from './config.js';
import { optional, type Container, type Cradle } from './cradle.js';
import { KEYS } from './keys.js';
import { loadAdapters, resolvePlugins, type LoadedAdapter, type Registries } from './loader.js';
import { createLogger, maskPath, redacting } from './logger.js';
import type { Role } from './plugin.js';
import { pluginContext } from './plugin-context.js';
import { registerRequestScope } from './request-scope.js';
import { createDatabase, type Db, type DatabaseInfo } from '../data/db.js';
import { migrateLatest } from '../data/migrate.js';
import { createBus, Outbox, OutboxRelay, purgeInbox } from '../bus/index.js';
import type { Bus } from '../bus/bus.js';
import { SecretBox, resolveSecretKeys } from '../security/secret-box.js';
import { PasswordHasher } from '../security/passwords.js';
import { RateLimiter } from '../http/rate-limit.js';
import { AuditWriter } from '../audit/audit-writer.js';
import { Scheduler } from '../scheduler/scheduler.js';
import { registerErrorEnvelope, validationFailAction } from '../http/errors.js';
import { registerCors } from '../http/cors.js';
import { registerAuth, type AuthResolver } from '../http/auth.js';
import { registerHealthRoutes } from '../http/health.js';
import { registerInputGuard } from '../http/input-guard.js';
import { buildOpenApiDocument, registerErrorContractCheck, registerOpenApiRoutes } from '../http/openapi.js';
import { noopErrorReporter, type ErrorReporter } from '../contracts/error-reporter.js';

export const ALL_ROLES: readonly Role[] = ['api', 'worker', 'scheduler'];
export const API_VERSION = '1.0.0';

export interface App {
  config: AppConfig;
  container: Container;
  server: Server;
  db: Db;
  dbInfo: DatabaseInfo;
  bus: Bus;
  log: Logger;
  roles: ReadonlySet<Role>;
  scheduler: Scheduler;
  relay: OutboxRelay;
  plugins: string[];
  adapters: LoadedAdapter[];
  /** Starts the bus, and per role: consumers and outbox relay (worker), the scheduler, the HTTP listener (api). */
  start(opts?: { listen?: boolean; scheduler?: boolean }): Promise<void>;
  /**
   * Graceful stop: drain HTTP, stop scheduler and relay, finish in-flight messages, close pools. Each
   * step is bounded; rejects naming the steps that failed or timed out, after running all of them.
   */
  stop(): Promise<void>;
  /** Where a running stop() is (for the hard deadline's log line in bin/patchwell.ts). */
  readonly stopProgress: StopProgress;
}

export interface StopProgress {
  /** The step running now, null when none is. */
  step: string | null;
  /** Steps that finished. */
  done: string[];
}

/** Least time a stop step gets, also once server.shutdownTimeoutMs is used up. */
const STOP_STEP_FLOOR_MS = 500;

export interface CreateAppOptions extends Registries {
  roles?: Iterable<Role>;
  logger?: Logger;
  /** In-memory PGlite only: start from this dump (tests). */
  pgliteTemplate?: Blob;
}

/**
 * Builds the whole service from its configuration: container, data, bus, adapters, HTTP, plugins.
 * `opts.plugins` and `opts.adapters` are the registries config picks from (the shipped ones are
 * plugins/index.ts and adapters/index.ts; bin/patchwell.ts passes them), so the core imports neither.
 */
export async function createApp(config: AppConfig, opts: CreateAppOptions): Promise<App> {
  const roles = new Set<Role>(opts.roles ?? ALL_ROLES);
  // Redaction lives on the logger itself, so every child (request log, bus, scheduler, plugins) inherits it.
  const log = opts.logger ? redacting(opts.logger) : createLogger(config.log.level);
  const container = createContainer<Cradle>({ injectionMode: InjectionMode.PROXY, strict: true });

  // A line per phase, so a first start (PGlite's initdb, every migration) does not look hung.
  const began = Date.now();
  const { db, info: dbInfo } = createDatabase(config, { pgliteTemplate: opts.pgliteTemplate });
  log.info({ engine: dbInfo.engine }, `database: opening ${dbInfo.engine} and applying migrations`);
  const applied = await migrateLatest(db);
  log.info(
    { engine: dbInfo.engine, applied: applied.length, ms: Date.now() - began },
    `database: ready, ${applied.length} migrations applied`,
  );
  Model.knex(db);

  const bus = createBus(config, { db, log });
  const outbox = new Outbox();
  const relay = new OutboxRelay({
    db,
    bus,
    log,
    batchSize: config.bus.outboxBatch,
    pollMs: config.bus.outboxPollMs,
    backoffMs: config.bus.backoffMs,
  });
  if (roles.has('worker')) outbox.onCommitted(() => relay.kick());
  const scheduler = new Scheduler(db, log, { engine: dbInfo.engine, electionMs: config.scheduler.electionMs });
  const authResolvers: AuthResolver[] = [];
  const rateLimiter = new RateLimiter(db);
  scheduleHousekeeping(scheduler, { db, relay, rateLimiter });

  container.register({
    [KEYS.config]: asValue(config),
    [KEYS.log]: asValue(log),
    [KEYS.db]: asValue(db),
    [KEYS.bus]: asValue(bus),
    [KEYS.outbox]: asValue(outbox),
    [KEYS.secretBox]: asValue(new SecretBox(resolveSecretKeys(config.security.secretKeys, config.dataDir))),
    [KEYS.passwords]: asValue(new PasswordHasher(config.security.passwordHashCost)),
    [KEYS.rateLimiter]: asValue(rateLimiter),
    [KEYS.audit]: asValue(new AuditWriter(db)),
    [KEYS.scheduler]: asValue(scheduler),
    [KEYS.authResolvers]: asValue(authResolvers),
    [KEYS.principal]: asValue(null),
    [KEYS.request]: asValue(null),
    [KEYS.message]: asValue(null),
  });

  const adapters = await loadAdapters(config, container, opts.adapters);
  const reporter: ErrorReporter = optional(container, 'errorReporter') ?? noopErrorReporter;
  container.register(KEYS.errorReporter, asValue(reporter));

  const server = createServer(config);
  await server.register({
    plugin: HapiPino,
    options: {
      instance: log,
      logRequestComplete: true,
      // The request is serialized into each request's child logger only when its completion line is
      // written (info); below that a request id is bound, which costs no serializing and no redaction
      // per request (bench/results/2026-11-29-sentry-envelope.md).
      getChildBindings: (request: Request) =>
        log.isLevelEnabled('info') ? { req: request } : { reqId: request.info.id },
      ignoreFunc: (_o: unknown, request: Request) =>
        request.path.startsWith('/v1/health') || request.path.startsWith('/docs/assets'),
      customRequestCompleteMessage: (request: Request, responseTime: number) =>
        `[response] ${request.method} ${maskPath(request.path, request.params)} ${request.raw.res.headersSent ? request.raw.res.statusCode : '-'} (${responseTime}ms)`,
    },
  });
  registerCors(server);
  registerErrorEnvelope(server, (err, request) => {
    log.error({ err, reqId: request.info.id, route: request.route.path }, 'request failed');
    reporter.capture(err, { requestId: request.info.id, route: request.route.path, method: request.method });
  });
  // Tests: an error answer its OpenAPI entry does not declare fails like a bad response body.
  if (config.server.validateResponses) registerErrorContractCheck(server);
  registerAuth(server, {
    resolvers: () => authResolvers,
    allowedOrigins: [config.server.publicBaseUrl, ...config.server.dashboardOrigins],
    trustProxy: config.server.trustProxy,
  });
  registerRequestScope(server, container);
  registerInputGuard(server);
  registerHealthRoutes(server, { db, bus });

  const startHooks: (() => Promise<void> | void)[] = [];
  const stopHooks: (() => Promise<void> | void)[] = [];
  const plugins = await resolvePlugins(config, opts.plugins);
  for (const { definition, options } of plugins) {
    const ctx = pluginContext({
      name: definition.name,
      options,
      config,
      container,
      server,
      log,
      roles,
      bus,
      db,
      scheduler,
      startHooks,
      stopHooks,
    });
    await definition.register(ctx);
  }
  log.info({ plugins: plugins.length, ms: Date.now() - began }, `plugins: ${plugins.length} registered`);

  let openapi: ReturnType<typeof buildOpenApiDocument> | null = null;
  await registerOpenApiRoutes(
    server,
    () =>
      (openapi ??= buildOpenApiDocument(server, {
        title: 'Patchwell API',
        version: API_VERSION,
        description:
          'Support automation: tickets, diagnoses, drafted replies, fixes as pull requests, approvals and releases.',
        serverUrl: config.server.publicBaseUrl,
      })),
  );

  let started = false;
  const stopProgress: StopProgress = { step: null, done: [] };
  const app: App = {
    config,
    container,
    server,
    db,
    dbInfo,
    bus,
    log,
    roles,
    scheduler,
    relay,
    adapters,
    plugins: plugins.map((p) => p.definition.name),
    async start(startOpts = {}) {
      await bus.start();
      if (roles.has('worker')) {
        await bus.startConsumers();
        relay.start();
      }
      for (const hook of startHooks) await hook();
      if (roles.has('scheduler') && startOpts.scheduler !== false) await scheduler.start();
      if (roles.has('api') && startOpts.listen !== false) await server.start();
      else await server.initialize();
      started = true;
    },
    stopProgress,
    async stop() {
      // Every step is bounded, so one dependency that hangs (a frozen Postgres, a blocked broker, a
      // deleted data directory) cannot hold the others; the steps after the drain share what is left of
      // server.shutdownTimeoutMs, each with a floor. bin/patchwell.ts adds a hard deadline on top.
      const began = Date.now();
      const budget = config.server.shutdownTimeoutMs;
      const failed: string[] = [];
      const step = async (name: string, maxMs: number, work: () => unknown): Promise<void> => {
        const ms = Math.max(STOP_STEP_FLOOR_MS, Math.min(maxMs, budget - (Date.now() - began)));
        stopProgress.step = name;
        const stepBegan = Date.now();
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            Promise.resolve().then(work),
            new Promise<never>((_, reject) => {
              timer = setTimeout(() => reject(new Error(`did not finish within ${ms} ms`)), ms);
            }),
          ]);
          stopProgress.done.push(name);
        } catch (err) {
          failed.push(name);
          log.error({ step: name, ms: Date.now() - stepBegan, err }, `stop: ${name} failed; going on`);
        } finally {
          clearTimeout(timer);
        }
      };
      if (started) {
        await step('http drain', budget + 1000, () => server.stop({ timeout: budget }));
        await step('scheduler', 5000, () => scheduler.stop());
        await step('outbox relay', 5000, () => relay.stop());
        // Consumers finish their in-flight messages before plugins release what they use.
        await step('bus', 10_000, () => bus.stop());
        const hooks = [...stopHooks].reverse();
        for (const [i, hook] of hooks.entries()) await step(`stop hook ${hooks.length - i}`, 5000, hook);
      }
      for (const a of adapters) await step(`adapter ${a.name}`, 3000, () => a.module.close?.(a.instance));
      await step('error reporter', 2000, () => reporter.flush(2000));
      await step('database', 3000, () => db.destroy());
      stopProgress.step = null;
      started = false;
      if (failed.length) throw new Error(`stop: ${failed.join(', ')} did not finish cleanly`);
    },
  };
  return app;
}

const DAY = 24 * 60 * 60 * 1000;

/**
 * The core's own periodic work. Published outbox rows are kept 7 days (for inspection); inbox rows
 * 14 days, longer than any retry span plus the outbox retention, so a late redelivery is still
 * recognised; finished rate-limit windows one day.
 */
function scheduleHousekeeping(scheduler: Scheduler, d: { db: Db; relay: OutboxRelay; rateLimiter: RateLimiter }): void {
  scheduler.add({
    name: 'core.purge-outbox',
    everyMs: DAY / 4,
    runAtStart: false,
    run: async () => void (await d.relay.purgePublished(7 * DAY)),
  });
  scheduler.add({
    name: 'core.purge-inbox',
    everyMs: DAY / 4,
    runAtStart: false,
    run: async () => void (await purgeInbox(d.db, 14 * DAY)),
  });
  scheduler.add({
    name: 'core.purge-rate-limits',
    everyMs: DAY / 24,
    runAtStart: false,
    run: async () => void (await d.rateLimiter.purge(DAY)),
  });
}

function createServer(config: AppConfig): Server {
  return Hapi.server({
    port: config.server.port,
    host: config.server.host,
    router: { stripTrailingSlash: true },
    routes: {
      validate: { failAction: validationFailAction, options: { abortEarly: false } },
      response: { sample: config.server.validateResponses ? 100 : 0, failAction: 'error' },
      payload: { maxBytes: config.server.bodyLimitBytes, allow: ['application/json'] },
      // HSTS only where the public address is https: over plain http it is ignored by browsers
      // and tells a reader the wrong thing (and a local http install must stay reachable).
      security: {
        noSniff: true,
        xframe: 'deny',
        referrer: 'strict-origin-when-cross-origin',
        hsts: hstsFor(config.server.publicBaseUrl),
      },
    },
    state: { strictHeader: false, ignoreErrors: true },
  });
}

function hstsFor(publicBaseUrl: string): { maxAge: number } | false {
  return publicBaseUrl.startsWith('https:') ? { maxAge: 31_536_000 } : false;
}
