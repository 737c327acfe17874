import type { Server } from '@hapi/hapi';
import { asValue } from 'awilix';
import type { Logger } from 'pino';
import type { Bus, BusMessage } from '../bus/bus.js';
import { idempotent } from '../bus/index.js';
import type { Db } from '../data/db.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { AppConfig } from './config.js';
import type { Container, MessageCradle } from './cradle.js';
import { KEYS } from './keys.js';
import type { PluginConsumerOptions, PluginContext, PluginMessageHandler, Role } from './plugin.js';

/** What a plugin's `register(ctx)` is given, over the app being built. */
export interface ContextDeps {
  name: string;
  options: object;
  config: AppConfig;
  container: Container;
  server: Server;
  log: Logger;
  roles: ReadonlySet<Role>;
  bus: Bus;
  db: Db;
  scheduler: Scheduler;
  startHooks: (() => Promise<void> | void)[];
  stopHooks: (() => Promise<void> | void)[];
}

export function pluginContext(d: ContextDeps): PluginContext<object> {
  const log = d.log.child({ plugin: d.name });
  return {
    name: d.name,
    options: d.options,
    config: d.config,
    container: d.container,
    server: d.server,
    log,
    roles: d.roles,
    routes(routes) {
      for (const r of routes) {
        const o = (r.options ?? {}) as { id?: string; tags?: string[] };
        if (!o.id)
          throw new Error(`plugin ${d.name}: route ${String(r.method)} ${r.path} has no options.id (operationId)`);
        if (!o.tags || o.tags.length !== 1)
          throw new Error(`plugin ${d.name}: route ${o.id} needs exactly one tag (its spec section)`);
      }
      d.server.route(routes);
    },
    provide(registrations) {
      d.container.register(registrations);
    },
    consume(name, patterns, handler, options) {
      d.bus.consume(`${d.name}.${name}`, patterns, wrapConsumer(d, `${d.name}.${name}`, handler, options), options);
    },
    schedule(name, options, task) {
      d.scheduler.add({
        name: `${d.name}.${name}`,
        everyMs: options.everyMs,
        runAtStart: options.runAtStart ?? false,
        run: task,
      });
    },
    onStart(fn) {
      d.startHooks.push(fn);
    },
    onStop(fn) {
      d.stopHooks.push(fn);
    },
  };
}

/** Each message runs in its own scope; idempotent consumers record it in the inbox in the handler's transaction. */
function wrapConsumer(
  d: ContextDeps,
  consumer: string,
  handler: PluginMessageHandler,
  options?: PluginConsumerOptions,
) {
  const run = (message: BusMessage, trx: Db | null) => {
    const scope = d.container.createScope<MessageCradle>();
    scope.register({ [KEYS.message]: asValue(message) });
    if (trx) scope.register({ trx: asValue(trx) });
    return handler(message, scope);
  };
  if (options?.idempotent === false) return (message: BusMessage) => run(message, null);
  return idempotent(d.db, consumer, (message, trx) => run(message, trx as unknown as Db));
}
