import type Joi from 'joi';

/** The extension points of the core; `config.adapters.<point>` chooses the adapters of each. */
export type ExtensionPoint = 'channel' | 'connector' | 'agent' | 'payment' | 'codeHost' | 'identity' | 'errorReporter';

/** Extension points where exactly one adapter is active; the others may run several side by side. */
export const SINGLE_ADAPTER_POINTS: readonly ExtensionPoint[] = ['channel', 'payment', 'codeHost', 'errorReporter'];

/** What the kernel hands an adapter factory: the root container's cradle (config, log, db, secretBox, …). */
export type AdapterDeps = Record<string, unknown> & { config: unknown; log: unknown };

/**
 * How an adapter package presents itself to the kernel. The default export of
 * `adapters/<kind>-<vendor>/index.ts` (or of a partner's module named in config) is one of these.
 *
 * @example
 * export default defineAdapter({
 *   kind: 'channel', name: 'mail-smtp', optionsSchema: Joi.object({ url: Joi.string().uri().required() }),
 *   create: (options, deps) => new SmtpChannelAdapter(options, deps),
 * });
 */
export interface AdapterModule<T = unknown, O = Record<string, unknown>> {
  kind: ExtensionPoint;
  /** Identifier used in config and container keys, e.g. `mail-ses`. */
  name: string;
  /** Joi schema of `config.adapters.options[name]`, checked at boot. */
  optionsSchema: Joi.ObjectSchema<O>;
  /** Builds the adapter instance (a singleton in the container). */
  create(options: O, deps: AdapterDeps): T | Promise<T>;
  /** Optional: called once on shutdown. */
  close?(instance: T): Promise<void>;
}

export function defineAdapter<T, O = Record<string, unknown>>(mod: AdapterModule<T, O>): AdapterModule<T, O> {
  return mod;
}
