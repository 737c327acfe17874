import { existsSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { asValue } from 'awilix';
import type { Container } from './cradle.js';
import type Joi from 'joi';
import type { AppConfig } from './config.js';
import { ConfigError, projectRoot } from './config.js';
import { KEYS, adapterKey } from './keys.js';
import type { PluginDefinition } from './plugin.js';
import {
  SINGLE_ADAPTER_POINTS,
  type AdapterDeps,
  type AdapterModule,
  type ExtensionPoint,
} from '../contracts/adapter.js';

/** Imports one plugin module on demand: `() => import('./tickets/index.js')`. */
export type PluginLoader = () => Promise<{ default: PluginDefinition<object> }>;
/** Imports one adapter module on demand: `() => import('./mail-ses/index.js')`. */
export type AdapterLoader = () => Promise<{ default: AdapterModule<unknown, object> }>;

/**
 * The plugins and adapters config may name, by name. The core imports none of them: the program
 * that builds the app (bin/patchwell.ts, a test helper) hands over plugins/index.ts and
 * adapters/index.ts, or a registry of its own. Partner modules are still named by path in config.
 */
export interface Registries {
  plugins: Readonly<Record<string, PluginLoader>>;
  adapters: Readonly<Record<string, AdapterLoader>>;
}

/** Container keys of each extension point: the selected adapter (single points) and the list. */
const POINT_KEYS: Record<ExtensionPoint, { one?: string; list?: string }> = {
  channel: { one: KEYS.channelAdapter, list: KEYS.channelAdapters },
  payment: { one: KEYS.paymentProvider, list: KEYS.paymentProviders },
  codeHost: { one: KEYS.codeHost, list: KEYS.codeHosts },
  connector: { list: KEYS.connectorAdapters },
  agent: { list: KEYS.agentExecutors },
  identity: { list: KEYS.identityProviders },
  errorReporter: { one: KEYS.errorReporter },
};

const isPath = (name: string) => name.startsWith('.') || name.startsWith('/');

/** Running the compiled tree (dist/, `npm start`) rather than the sources under tsx or tap. */
const compiled = import.meta.url.endsWith('.js');

/**
 * A partner module named by its TypeScript path: compiled, its twin in dist/ when the build made one
 * (examples/), else tsx registered for this one import. Sources run under tsx already.
 */
async function modulePath(spec: string): Promise<string> {
  const path = resolve(projectRoot, spec);
  if (!compiled || !/\.m?ts$/.test(path)) return path;
  const twin = resolve(projectRoot, 'dist', relative(projectRoot, path))
    .replace(/\.ts$/, '.js')
    .replace(/\.mts$/, '.mjs');
  if (!relative(projectRoot, path).startsWith('..') && existsSync(twin)) return twin;
  // What `--import tsx` does: its ESM and CommonJS hooks, from here on.
  tsx ??= import(TSX).then(() => undefined);
  await tsx;
  return path;
}
let tsx: Promise<void> | null = null;
// Typed as a plain string so that tsc does not look for declarations of the import (tsx ships none for it).
const TSX: string = 'tsx';

async function importDefault<T>(spec: string, what: string): Promise<T> {
  try {
    const mod = (await import(pathToFileURL(await modulePath(spec)).href)) as { default?: T };
    if (!mod.default) throw new Error('it has no default export');
    return mod.default;
  } catch (err) {
    throw new ConfigError(`${what} module ${spec} cannot be loaded: ${(err as Error).message}`);
  }
}

export function validateOptions<O>(schema: Joi.ObjectSchema<O> | undefined, raw: unknown, keyPrefix: string): O {
  if (!schema) return (raw ?? {}) as O;
  const result = schema.validate(raw ?? {}, { abortEarly: false });
  if (result.error) {
    const lines = result.error.details.map(
      (d) => `  - config key ${[keyPrefix, ...d.path].join('.')}: ${d.message.replace(/^"[^"]*" /, '')}`,
    );
    throw new ConfigError(`invalid configuration:\n${lines.join('\n')}`);
  }
  return result.value;
}

export function adapterNames(config: AppConfig, point: ExtensionPoint): string[] {
  const v = config.adapters[point];
  if (Array.isArray(v)) return v;
  return v ? [v] : [];
}

export interface LoadedAdapter {
  point: ExtensionPoint;
  name: string;
  module: AdapterModule<unknown, object>;
  instance: unknown;
}

/**
 * Loads the adapters config selects for each extension point, validates their options, builds them
 * and registers them: `<point>:<name>`, the selected one (single points) and the list.
 */
export async function loadAdapters(
  config: AppConfig,
  container: Container,
  registry: Registries['adapters'],
): Promise<LoadedAdapter[]> {
  const loaded: LoadedAdapter[] = [];
  for (const point of Object.keys(POINT_KEYS) as ExtensionPoint[]) {
    const instances: unknown[] = [];
    for (const name of adapterNames(config, point)) {
      const loader = Object.hasOwn(registry, name) ? registry[name] : undefined;
      if (!loader && !isPath(name)) {
        throw new ConfigError(
          `config key adapters.${point}: unknown adapter "${name}" (shipped: ${Object.keys(registry).join(', ') || 'none'})`,
        );
      }
      const mod = loader
        ? (await loader()).default
        : await importDefault<AdapterModule<unknown, object>>(name, 'adapter');
      if (mod.kind !== point)
        throw new ConfigError(`config key adapters.${point}: adapter "${name}" implements ${mod.kind}, not ${point}`);
      const options = validateOptions(
        mod.optionsSchema,
        config.adapters.options[mod.name] ?? config.adapters.options[name],
        `adapters.options.${mod.name}`,
      );
      const instance = await mod.create(options, adapterDeps(container));
      container.register(adapterKey(point, mod.name), asValue(instance));
      instances.push(instance);
      loaded.push({ point, name: mod.name, module: mod, instance });
    }
    const keys = POINT_KEYS[point];
    if (keys.list) container.register(keys.list, asValue(instances));
    if (keys.one && SINGLE_ADAPTER_POINTS.includes(point)) container.register(keys.one, asValue(instances[0] ?? null));
  }
  return loaded;
}

/**
 * The root container as an adapter sees it (AdapterDeps: a record by key name): each read resolves
 * that registration when it is made, as the cradle does, so later registrations are seen too.
 */
function adapterDeps(container: Container): AdapterDeps {
  const { config, log } = container.cradle;
  const registered = (key: string | symbol): key is string => typeof key === 'string' && container.hasRegistration(key);
  return new Proxy<AdapterDeps>(
    { config, log },
    {
      get: (base, key): unknown => {
        if (registered(key)) return container.resolve<unknown>(key);
        const own: unknown = Reflect.get(base, key);
        return own;
      },
      has: (base, key) => registered(key) || Reflect.has(base, key),
    },
  );
}

export interface ResolvedPlugin {
  definition: PluginDefinition<object>;
  options: object;
}

/**
 * Resolves the enabled plugins in dependency order: built-in ones unless disabled, plus partner
 * modules named in config. A missing requirement, an extension point without an adapter, a cycle
 * or bad options stop boot with a message naming the plugin and key.
 */
export async function resolvePlugins(config: AppConfig, registry: Registries['plugins']): Promise<ResolvedPlugin[]> {
  const names = new Set([...Object.keys(registry), ...Object.keys(config.plugins)]);
  const defs = new Map<string, PluginDefinition<object>>();
  for (const name of names) {
    const entry = config.plugins[name] ?? {};
    if (entry.enabled === false) continue;
    const loader = Object.hasOwn(registry, name) ? registry[name] : undefined;
    if (!loader && !entry.module)
      throw new ConfigError(`config key plugins.${name}: unknown plugin; give "module" for a partner plugin`);
    const def = entry.module
      ? await importDefault<PluginDefinition<object>>(entry.module, `plugin ${name}`)
      : (await loader!()).default;
    if (def.name !== name) throw new ConfigError(`config key plugins.${name}: the module defines plugin "${def.name}"`);
    defs.set(name, def);
  }

  for (const def of defs.values()) {
    for (const req of def.requires ?? []) {
      if (!defs.has(req)) {
        const why = config.plugins[req]?.enabled === false ? 'which is disabled' : 'which is not installed';
        throw new ConfigError(`plugin ${def.name} requires plugin ${req}, ${why} (config key plugins.${req}.enabled)`);
      }
    }
    for (const point of def.uses ?? []) {
      if (adapterNames(config, point).length === 0) {
        throw new ConfigError(
          `plugin ${def.name} uses the ${point} extension point, but config key adapters.${point} selects no adapter`,
        );
      }
    }
  }

  const ordered: PluginDefinition<object>[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (name: string, path: string[]) => {
    if (state.get(name) === 'done') return;
    if (state.get(name) === 'visiting')
      throw new ConfigError(`plugins require each other in a cycle: ${[...path, name].join(' → ')}`);
    state.set(name, 'visiting');
    const def = defs.get(name)!;
    for (const req of def.requires ?? []) visit(req, [...path, name]);
    state.set(name, 'done');
    ordered.push(def);
  };
  for (const name of [...defs.keys()].sort()) visit(name, []);

  return ordered.map((definition) => ({
    definition,
    options: validateOptions(
      definition.options,
      config.plugins[definition.name]?.options,
      `plugins.${definition.name}.options`,
    ),
  }));
}
