import Joi from 'joi';
import { hmacSha256Hex, safeEqual } from '../security/tokens.js';

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

// ---------------------------------------------------------------------------------------------
// Errors every adapter throws. `code` is stable snake_case; plugins map it to an API answer.
// Checks elsewhere compare `code`, not the class, so a partner package with its own copy of
// these classes still fits.
// ---------------------------------------------------------------------------------------------

export interface AdapterErrorOptions {
  /** Extra facts for logs and API `details` (never secrets). */
  details?: Record<string, unknown>;
  /** True when the same call may succeed later (vendor outage, rate limit): bus consumers retry. */
  retryable?: boolean;
  cause?: unknown;
}

/** Base of every error an adapter throws on purpose. */
export class AdapterError extends Error {
  override name = 'AdapterError';
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly retryable: boolean;

  constructor(code: string, message: string, opts: AdapterErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.code = code;
    this.details = opts.details ?? {};
    this.retryable = opts.retryable ?? false;
  }
}

/** Options of an adapter do not match its schema; the message names each wrong config key. */
export class AdapterOptionsError extends AdapterError {
  override name = 'AdapterOptionsError';
  constructor(
    message: string,
    readonly errors: ReadonlyArray<{ path: string; message: string }>,
  ) {
    super('invalid_adapter_options', message, { details: { errors } });
  }
}

/** An inbound delivery (webhook) whose signature is missing or wrong. Code `invalid_signature`. */
export class SignatureError extends AdapterError {
  override name = 'SignatureError';
  constructor(message = 'the delivery signature is missing or does not match', opts: AdapterErrorOptions = {}) {
    super('invalid_signature', message, opts);
  }
}

/** A payload the adapter cannot read (malformed JSON, unknown shape). Code `invalid_payload`. */
export class PayloadError extends AdapterError {
  override name = 'PayloadError';
  constructor(message: string, opts: AdapterErrorOptions = {}) {
    super('invalid_payload', message, opts);
  }
}

/** The adapter does not offer this operation (e.g. a diagnose-only executor asked to fix). Code `not_supported`. */
export class NotSupportedError extends AdapterError {
  override name = 'NotSupportedError';
  constructor(message: string, opts: AdapterErrorOptions = {}) {
    super('not_supported', message, opts);
  }
}

/** The vendor does not know the object (installation, repository, subscription…). Code `not_found`. */
export class AdapterNotFoundError extends AdapterError {
  override name = 'AdapterNotFoundError';
  constructor(message: string, opts: AdapterErrorOptions = {}) {
    super('not_found', message, opts);
  }
}

/** True for an AdapterError, including one from another copy of this module (checked by shape). */
export function isAdapterError(err: unknown, code?: string): err is AdapterError {
  if (typeof err !== 'object' || err === null) return false;
  const c = (err as { code?: unknown }).code;
  if (typeof c !== 'string' || !(err instanceof Error)) return false;
  return code === undefined || c === code;
}

// ---------------------------------------------------------------------------------------------
// Options: every adapter class validates its options with a joi schema, at boot.
// ---------------------------------------------------------------------------------------------

/**
 * Validates adapter options against a joi schema and returns them with defaults filled in. A
 * failure throws an AdapterOptionsError whose message names each key as it is written in config:
 * `config key adapters.options.mail-smtp.url: is required`.
 */
export function validateAdapterOptions<O>(identifier: string, schema: Joi.ObjectSchema<O>, options: unknown): O {
  const result = schema.validate(options ?? {}, { abortEarly: false, convert: true });
  if (!result.error) return result.value;
  const errors = result.error.details.map((d) => ({
    path: d.path.join('.'),
    message: d.message.replace(/^"[^"]*" /, ''),
  }));
  const lines = errors.map(
    (e) => `  - config key adapters.options.${identifier}${e.path ? `.${e.path}` : ''}: ${e.message}`,
  );
  throw new AdapterOptionsError(`invalid options for adapter ${identifier}:\n${lines.join('\n')}`, errors);
}

/** The static side of an adapter class built on AbstractAdapter. */
export interface AdapterClass<T, O> {
  readonly identifier: string;
  readonly optionsSchema: Joi.ObjectSchema<O>;
  validateOptions(options: unknown): O;
  new (options: O, deps?: AdapterDeps): T;
}

/**
 * Shared base of the six abstract adapter classes (Medusa style): a static `identifier`, a static
 * joi `optionsSchema` and `validateOptions`, and the instance `identifier` read from the class.
 */
export abstract class AbstractAdapter<O extends object = Record<string, unknown>> {
  /** Name in config and container keys, e.g. `mail-smtp`. Every concrete class sets it. */
  static identifier = '';
  /** Joi schema of this adapter's options; concrete classes extend their kind's base schema. */
  static optionsSchema: Joi.ObjectSchema<object> = Joi.object({});

  /**
   * Checks options against the class's schema; throws AdapterOptionsError naming the key.
   *
   * @example SmtpChannelAdapter.validateOptions({ url: 'smtp://localhost:2525' })
   */
  static validateOptions<O>(this: { identifier: string; optionsSchema: Joi.ObjectSchema<O> }, options: unknown): O {
    return validateAdapterOptions(this.identifier, this.optionsSchema, options);
  }

  protected readonly options: O;
  protected readonly deps: AdapterDeps;

  constructor(options: O, deps?: AdapterDeps) {
    this.options = options;
    this.deps = deps ?? { config: undefined, log: undefined };
  }

  /** The class's static identifier. */
  get identifier(): string {
    return (this.constructor as { identifier?: string }).identifier ?? '';
  }
}

/**
 * Builds the AdapterModule of a class built on AbstractAdapter, so a vendor package's index is
 * one line: `export default adapterModule('channel', SmtpChannelAdapter)`.
 */
export function adapterModule<T, O>(
  kind: ExtensionPoint,
  cls: AdapterClass<T, O>,
  close?: (instance: T) => Promise<void>,
): AdapterModule<T, O> {
  return {
    kind,
    name: cls.identifier,
    optionsSchema: cls.optionsSchema,
    create: (options, deps) => new cls(cls.validateOptions(options), deps),
    ...(close ? { close } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// Inbound deliveries (webhooks): the raw request as hapi received it.
// ---------------------------------------------------------------------------------------------

/** Request headers as Node gives them (lower-case names). */
export type RawHeaders = Record<string, string | string[] | undefined>;

/** One webhook request: headers and the exact bytes of the body (signatures cover these). */
export interface WebhookDelivery {
  headers: RawHeaders;
  rawBody: Buffer;
}

/** First value of a header, looked up without regard to case. */
export function headerValue(headers: RawHeaders, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted) continue;
    return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

/** For adapters: HMAC signatures and constant-time comparison (core/security/tokens.ts). */
export { hmacSha256Hex, safeEqual };

/**
 * Checks a `sha256=<hex>` signature header (GitHub's X-Hub-Signature-256, the `mime` email
 * webhook's X-Webhook-Signature) over the raw body. False for a missing or malformed header.
 */
export function verifySha256Header(
  headers: RawHeaders,
  header: string,
  secret: string | Buffer,
  rawBody: Buffer,
): boolean {
  const value = headerValue(headers, header);
  if (!value || !/^sha256=[0-9a-f]{64}$/i.test(value.trim())) return false;
  return safeEqual(value.trim().slice(7).toLowerCase(), hmacSha256Hex(secret, rawBody));
}
