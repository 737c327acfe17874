import { readFileSync, existsSync } from 'node:fs';
import { resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import Joi from 'joi';

/** The whole validated configuration of one process. Every key is documented in docs/configuration.md. */
export interface AppConfig {
  server: {
    port: number;
    host: string;
    publicBaseUrl: string;
    dashboardOrigins: string[];
    bodyLimitBytes: number;
    shutdownTimeoutMs: number;
    validateResponses: boolean;
    /** Proxies in front of the service: false, a number of trusted hops, or true (every hop); core/http/actor.ts. */
    trustProxy: boolean | number;
    /** HTTP processes of the api role (node:cluster, one shared port); more than 1 needs Postgres. */
    apiProcesses: number;
  };
  dataDir: string;
  database: {
    url: string | null;
    poolMin: number;
    poolMax: number;
    schema?: string | null;
    /**
     * Connections go through a pooler in transaction mode (PgBouncer): hot-path statements run
     * unnamed (core/data/statements.ts) and the credential cache is off (LISTEN needs a session).
     */
    transactionPooler: boolean;
    /** Embedded only: a fresh data directory starts from the migrated template when one is cached (core/data/pglite-template.ts). */
    pgliteTemplate: boolean;
  };
  bus: {
    url: string | null;
    exchange: string;
    prefetch: number;
    maxAttempts: number;
    backoffMs: number[];
    outboxPollMs: number;
    outboxBatch: number;
    deleteQueuesOnStop: boolean;
    /** RabbitMQ queue type of consumer queues: `auto` = quorum when the broker has them (3.8+), else classic. */
    queueType: 'auto' | 'quorum' | 'classic';
  };
  scheduler: {
    /** How often a follower tries to take the lead, and a leader checks the session holding its lock. */
    electionMs: number;
  };
  security: {
    secretKeys: string | null;
    passwordHashCost: number;
    /** Let the SSRF-guarded fetch reach loopback addresses (tests against local peers only). */
    allowLoopbackFetch: boolean;
  };
  log: { level: string };
  sentry: { dsn: string | null; environment: string; tracesSampleRate: number };
  adapters: {
    channel: string | null;
    payment: string | null;
    codeHost: string | null;
    connector: string[];
    agent: string[];
    identity: string[];
    errorReporter: string | null;
    options: Record<string, Record<string, unknown>>;
  };
  /** Per-plugin switches and options: `{ "<name>": { "enabled": false, "options": {…}, "module": "./path" } }`. */
  plugins: Record<string, PluginConfig>;
}

export interface PluginConfig {
  enabled?: boolean;
  module?: string;
  options?: Record<string, unknown>;
}

const adapterName = Joi.string().pattern(/^[a-z0-9][a-z0-9-]*$|^\.{0,2}\//);

export const configSchema = Joi.object<AppConfig>({
  server: Joi.object({
    port: Joi.number().integer().min(0).max(65535).required(),
    host: Joi.string().required(),
    publicBaseUrl: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .required(),
    dashboardOrigins: Joi.array()
      .items(Joi.string().uri({ scheme: ['http', 'https'] }))
      .required(),
    bodyLimitBytes: Joi.number().integer().min(1024).required(),
    shutdownTimeoutMs: Joi.number().integer().min(0).required(),
    validateResponses: Joi.boolean().required(),
    trustProxy: Joi.alternatives(Joi.boolean(), Joi.number().integer().min(0).max(16)).required(),
    apiProcesses: Joi.number().integer().min(1).max(64).required(),
  }).required(),
  dataDir: Joi.string().required(),
  database: Joi.object({
    url: Joi.string()
      .uri({ scheme: ['postgres', 'postgresql'] })
      .allow(null)
      .required(),
    poolMin: Joi.number().integer().min(0).required(),
    poolMax: Joi.number().integer().min(1).required(),
    schema: Joi.string()
      .pattern(/^[a-z_][a-z0-9_]*$/)
      .allow(null),
    transactionPooler: Joi.boolean().required(),
    pgliteTemplate: Joi.boolean().required(),
  }).required(),
  bus: Joi.object({
    url: Joi.string()
      .uri({ scheme: ['amqp', 'amqps'] })
      .allow(null)
      .required(),
    exchange: Joi.string()
      .pattern(/^[A-Za-z0-9._-]+$/)
      .required(),
    prefetch: Joi.number().integer().min(1).max(1000).required(),
    maxAttempts: Joi.number().integer().min(1).max(50).required(),
    backoffMs: Joi.array().items(Joi.number().integer().min(0)).min(1).required(),
    outboxPollMs: Joi.number().integer().min(10).required(),
    outboxBatch: Joi.number().integer().min(1).max(10000).required(),
    deleteQueuesOnStop: Joi.boolean().required(),
    queueType: Joi.string().valid('auto', 'quorum', 'classic').default('auto'),
  }).required(),
  scheduler: Joi.object({
    electionMs: Joi.number().integer().min(100).max(600_000).default(5_000),
  }).default({ electionMs: 5_000 }),
  security: Joi.object({
    secretKeys: Joi.string().allow(null).required(),
    passwordHashCost: Joi.number().integer().min(10).max(20).required(),
    allowLoopbackFetch: Joi.boolean().default(false),
  }).required(),
  log: Joi.object({
    level: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').required(),
  }).required(),
  sentry: Joi.object({
    dsn: Joi.string().uri().allow(null).required(),
    environment: Joi.string().required(),
    tracesSampleRate: Joi.number().min(0).max(1).required(),
  }).required(),
  adapters: Joi.object({
    channel: adapterName.allow(null).required(),
    payment: adapterName.allow(null).required(),
    codeHost: adapterName.allow(null).required(),
    connector: Joi.array().items(adapterName).unique().required(),
    agent: Joi.array().items(adapterName).unique().required(),
    identity: Joi.array().items(adapterName).unique().required(),
    errorReporter: adapterName.allow(null).required(),
    options: Joi.object().pattern(Joi.string(), Joi.object().unknown(true)).required(),
  }).required(),
  plugins: Joi.object()
    .pattern(
      Joi.string().pattern(/^[a-z][a-z0-9-]*$/),
      Joi.object({ enabled: Joi.boolean(), module: Joi.string(), options: Joi.object().unknown(true) }),
    )
    .required(),
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const here = dirname(fileURLToPath(import.meta.url));
/**
 * The checkout: core/kernel/../.. from the sources, dist/core/kernel/../../.. from the compiled
 * tree `npm start` runs (bin/build.mjs), which holds no package.json of its own.
 */
export const projectRoot = existsSync(resolve(here, '..', '..', 'package.json'))
  ? resolve(here, '..', '..')
  : resolve(here, '..', '..', '..');

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Deep merge where arrays and scalars of `over` replace those of `base`. */
export function mergeConfig<T>(base: T, over: unknown): T {
  if (!isObject(base) || !isObject(over)) return (over === undefined ? base : over) as T;
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = k in out ? mergeConfig(out[k], v) : v;
  return out as T;
}

function readJson(path: string, label: string): Json {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Json;
  } catch (err) {
    throw new ConfigError(`${label} (${path}) is not readable JSON: ${(err as Error).message}`);
  }
}

const intEnv = (name: string, v: string, key = 'server.port'): number => {
  if (!/^\d+$/.test(v)) throw new ConfigError(`config key ${key} (from ${name}) must be an integer, got "${v}"`);
  return Number(v);
};

/**
 * Maps the documented environment variables onto config keys. `base` is the configuration they
 * apply to (defaults and CONFIG_FILE), for keys that depend on it.
 */
export function envOverrides(env: NodeJS.ProcessEnv, base: Json = {}): Json {
  const o: Json = {};
  const set = (path: string, value: unknown) => {
    const keys = path.split('.');
    let cur = o;
    for (const k of keys.slice(0, -1)) cur = (cur[k] ??= {}) as Json;
    cur[keys[keys.length - 1]] = value;
  };
  if (env.PORT) {
    const port = intEnv('PORT', env.PORT);
    set('server.port', port);
    // The public address follows PORT while it is still the local one of the configured port (nobody set a
    // real one), so the console link printed at start and the links in mail point where the service listens.
    const server = (base.server ?? {}) as { port?: unknown; publicBaseUrl?: unknown };
    if (!env.PUBLIC_BASE_URL && port > 0 && server.publicBaseUrl === `http://localhost:${String(server.port)}`)
      set('server.publicBaseUrl', `http://localhost:${port}`);
  }
  if (env.HOST) set('server.host', env.HOST);
  if (env.API_PROCESSES) set('server.apiProcesses', intEnv('API_PROCESSES', env.API_PROCESSES, 'server.apiProcesses'));
  if (env.PUBLIC_BASE_URL) set('server.publicBaseUrl', env.PUBLIC_BASE_URL.replace(/\/+$/, ''));
  if (env.DASHBOARD_ORIGINS !== undefined)
    set(
      'server.dashboardOrigins',
      env.DASHBOARD_ORIGINS.split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    );
  if (env.DATA_DIR) set('dataDir', env.DATA_DIR);
  if (env.DATABASE_URL) set('database.url', env.DATABASE_URL);
  if (env.PGLITE_TEMPLATE)
    set('database.pgliteTemplate', env.PGLITE_TEMPLATE !== 'false' && env.PGLITE_TEMPLATE !== '0');
  if (env.AMQP_URL) set('bus.url', env.AMQP_URL);
  if (env.BUS_EXCHANGE) set('bus.exchange', env.BUS_EXCHANGE);
  if (env.BUS_QUEUE_TYPE) set('bus.queueType', env.BUS_QUEUE_TYPE);
  if (env.SECRET_KEYS) set('security.secretKeys', env.SECRET_KEYS);
  if (env.LOG_LEVEL) set('log.level', env.LOG_LEVEL);
  if (env.SENTRY_DSN) set('sentry.dsn', env.SENTRY_DSN);
  if (env.SENTRY_ENVIRONMENT) set('sentry.environment', env.SENTRY_ENVIRONMENT);
  if (env.MAIL_PROVIDER) set('adapters.channel', `mail-${env.MAIL_PROVIDER}`);
  if (env.EMAIL_WEBHOOK_SECRET) {
    set('plugins.inbox.options.webhookSecret', env.EMAIL_WEBHOOK_SECRET);
    // The selected channel adapter checks `mime` deliveries with it (ChannelAdapterOptions.webhookSecret).
    // Built by hand: an adapter named by module path has dots in its key.
    const channel = env.MAIL_PROVIDER ? `mail-${env.MAIL_PROVIDER}` : (base.adapters as Json | undefined)?.channel;
    if (typeof channel === 'string' && channel) {
      const options = (((o.adapters ??= {}) as Json).options ??= {}) as Json;
      options[channel] = { ...(options[channel] ?? {}), webhookSecret: env.EMAIL_WEBHOOK_SECRET };
    }
  }
  return o;
}

export interface LoadConfigOptions {
  env?: NodeJS.ProcessEnv;
  /** Values merged last (tests use this). */
  overrides?: unknown;
}

/**
 * Builds the configuration: config/default.json, then CONFIG_FILE, then the environment, then
 * explicit overrides; validated with joi. A wrong value throws a ConfigError naming the key.
 */
export function loadConfig(opts: LoadConfigOptions = {}): AppConfig {
  const env = opts.env ?? process.env;
  let cfg: Json = readJson(resolve(projectRoot, 'config', 'default.json'), 'config/default.json');
  if (env.CONFIG_FILE) {
    const file = resolve(process.cwd(), env.CONFIG_FILE);
    if (!existsSync(file)) throw new ConfigError(`CONFIG_FILE ${file} does not exist`);
    cfg = mergeConfig(cfg, readJson(file, 'CONFIG_FILE'));
  }
  cfg = mergeConfig(cfg, envOverrides(env, cfg));
  if (opts.overrides) cfg = mergeConfig(cfg, opts.overrides);
  return validateConfig(cfg);
}

export function validateConfig(raw: unknown): AppConfig {
  const result = configSchema.validate(raw, { abortEarly: false, convert: true });
  if (result.error) {
    const lines = result.error.details.map(
      (d) => `  - config key ${d.path.join('.') || '(root)'}: ${d.message.replace(/^"[^"]*" /, '')}`,
    );
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.value;
}
