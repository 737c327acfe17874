import type { Request } from '@hapi/hapi';
import type { AwilixContainer } from 'awilix';
import type { Logger } from 'pino';
import type { AuditWriter } from '../audit/audit-writer.js';
import type { Bus, BusMessage } from '../bus/bus.js';
import type { Outbox } from '../bus/outbox.js';
import type {
  AgentExecutor,
  ChannelAdapter,
  CodeHost,
  ConnectorAdapter,
  ErrorReporter,
  ExtensionPoint,
  IdentityProvider,
  PaymentProvider,
} from '../contracts/index.js';
import type { Db } from '../data/db.js';
import type { AuthResolver, Principal } from '../http/auth.js';
import type { RateLimiter } from '../http/rate-limit.js';
import type { Scheduler } from '../scheduler/scheduler.js';
import type { PasswordHasher } from '../security/passwords.js';
import type { SecretBox } from '../security/secret-box.js';
import { ConfigError, type AppConfig } from './config.js';

/**
 * What the root container holds, by key. The core's own keys are declared here; each plugin adds
 * what it provides in its own `cradle.ts` by declaration merging:
 *
 * @example
 * declare module '../../core/kernel/cradle.js' {
 *   interface Cradle { ticketService: TicketService }
 * }
 *
 * So a read is typed without a cast, and a plugin that reads another's key sees its type without
 * importing that plugin. A key a plugin may or may not provide (its plugin can be disabled) is read
 * with `optional()` below, which says so in its type.
 */
export interface Cradle {
  config: AppConfig;
  log: Logger;
  db: Db;
  bus: Bus;
  outbox: Outbox;
  secretBox: SecretBox;
  passwords: PasswordHasher;
  rateLimiter: RateLimiter;
  audit: AuditWriter;
  scheduler: Scheduler;
  errorReporter: ErrorReporter;
  authResolvers: AuthResolver[];

  /** The selected adapter of each single extension point (null when config selects none) and the lists. */
  channelAdapter: ChannelAdapter | null;
  channelAdapters: ChannelAdapter[];
  paymentProvider: PaymentProvider | null;
  paymentProviders: PaymentProvider[];
  codeHost: CodeHost | null;
  codeHosts: CodeHost[];
  connectorAdapters: ConnectorAdapter[];
  agentExecutors: AgentExecutor[];
  identityProviders: IdentityProvider[];

  /** Request scope only (null in the root): the hapi request and its authenticated principal. */
  request: Request | null;
  principal: Principal | null;
  /** Message scope only (null in the root): the bus message being handled. */
  message: BusMessage | null;
}

/** What an idempotent bus consumer's scope adds: the transaction its inbox row is written in (not registered for `idempotent: false`). */
export interface MessageCradle {
  trx: Db;
}

export type Container = AwilixContainer<Cradle>;
export type MessageScope = AwilixContainer<Cradle & MessageCradle>;

/** A key another plugin provides when it is enabled: undefined when it is not. */
export function optional<K extends keyof Cradle>(container: Container, key: K): Cradle[K] | undefined {
  return container.resolve(key, { allowUnregistered: true });
}

/** The selected adapter of a single extension point a plugin `uses` (boot refuses a config that selects none). */
export function selected<T>(adapter: T | null, point: ExtensionPoint): T {
  if (!adapter) throw new ConfigError(`config key adapters.${point} selects no adapter`);
  return adapter;
}

/** The Cradle keys whose value fits T. */
type KeyFitting<T> = { [C in keyof Cradle]-?: Cradle[C] extends T ? C : never }[keyof Cradle];

/** Where each entry of a plugin's port comes from: the Cradle key, or a function (an optional key, a plugin's own value). */
export type CradleMap<D> = { readonly [K in keyof D]-?: KeyFitting<D[K]> | (() => D[K]) };

/**
 * A plugin's port as a view of the container: each entry is read when used (a key is resolved at
 * its first read, so plugins can register in any order), typed against the Cradle.
 *
 * @example cradleView<McpDeps>(container, { db: 'db', jobs: 'fixJobs', repositories: () => optional(container, 'codehostRepositories') ?? null })
 */
export function cradleView<D extends object>(container: Container, map: CradleMap<D>): D {
  const view = {} as D;
  for (const [name, source] of Object.entries<keyof Cradle | (() => unknown)>(map)) {
    const get = typeof source === 'function' ? source : () => container.cradle[source];
    Object.defineProperty(view, name, { enumerable: true, get });
  }
  return view;
}
