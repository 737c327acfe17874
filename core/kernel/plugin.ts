import type { ServerRoute, Server } from '@hapi/hapi';
import type { Resolver } from 'awilix';
import type { Container, Cradle, MessageScope } from './cradle.js';
import type Joi from 'joi';
import type { Logger } from 'pino';
import type { AppConfig } from './config.js';
import type { ExtensionPoint } from '../contracts/adapter.js';
import type { BusMessage, ConsumerOptions } from '../bus/bus.js';

export type Role = 'api' | 'worker' | 'scheduler';

/** Handler of a bus message, run in its own container scope (`scope.cradle.message`). */
export type PluginMessageHandler = (message: BusMessage, scope: MessageScope) => Promise<void>;

export interface PluginConsumerOptions extends ConsumerOptions {
  /**
   * Record each handled message id in the inbox, in the same transaction as the handler's work
   * (`scope.cradle.trx`), so a redelivered message is handled once. Default true.
   */
  idempotent?: boolean;
}

export interface ScheduleOptions {
  /** Interval between runs. */
  everyMs: number;
  /** Run once right after start. Default false. */
  runAtStart?: boolean;
}

/** What `provide` takes: declared keys with their types, and prefixed keys of open lists. */
export type Registrations = { [K in keyof Cradle]?: Resolver<Cradle[K]> } & {
  [key: `${string}:${string}`]: Resolver<unknown>;
};

/** What a plugin's `register` receives. */
export interface PluginContext<O = Record<string, unknown>> {
  name: string;
  /** The plugin's options, validated against its schema. */
  options: O;
  config: AppConfig;
  /** The root container. Register services with `provide`. */
  container: Container;
  /** The hapi server: for decorations and extension points, never for routes (use `routes`). */
  server: Server;
  log: Logger;
  /** Roles this process runs. */
  roles: ReadonlySet<Role>;
  /** Adds routes. Each needs `options.id` (operationId) and exactly one tag (the spec section). */
  routes(routes: ServerRoute[]): void;
  /**
   * Registers services in the root container: a declared key (the plugin's cradle.ts) takes a value of
   * its declared type; a prefixed key (`ticketPageSection:<plugin>`) is an open list read by prefix.
   */
  provide(registrations: Registrations): void;
  /** Declares a bus consumer; the queue is named `<plugin>.<name>`; it runs on worker roles. */
  consume(name: string, patterns: string[], handler: PluginMessageHandler, options?: PluginConsumerOptions): void;
  /** Declares periodic work; it runs on the elected scheduler only. */
  schedule(name: string, options: ScheduleOptions, task: () => Promise<void>): void;
  onStart(fn: () => Promise<void> | void): void;
  onStop(fn: () => Promise<void> | void): void;
}

/**
 * A plugin manifest. The default export of `plugins/<name>/index.ts` (or of a partner's module
 * named in config).
 */
export interface PluginDefinition<O = Record<string, unknown>> {
  name: string;
  version: string;
  /** Plugins that must be enabled too; they register first. */
  requires?: string[];
  /** Extension points whose adapters this plugin needs. */
  uses?: ExtensionPoint[];
  /** Joi schema of `config.plugins[name].options`; defaults fill in. */
  options?: Joi.ObjectSchema<O>;
  register(ctx: PluginContext<O>): void | Promise<void>;
}

export function definePlugin<O = Record<string, unknown>>(def: PluginDefinition<O>): PluginDefinition<O> {
  return def;
}
