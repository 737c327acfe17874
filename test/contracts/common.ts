/**
 * Shared pieces of the contract kits (test/contracts/<kind>.ts): the small part of tap's `t` they
 * use, a collector that runs a kit outside tap (to prove a kit catches a broken adapter), shape
 * checks with joi, and the cases every adapter kind shares (identifier, module, options).
 */
import { randomBytes } from 'node:crypto';
import { inspect, isDeepStrictEqual } from 'node:util';
import Joi from 'joi';
import {
  isAdapterError,
  validateAdapterOptions,
  type RawHeaders,
  type WebhookDelivery,
} from '../../core/contracts/index.js';

/** The part of tap's `Test` the kits use. tap's `t` fits it; so does CollectingTest. */
export interface ContractTest {
  test(name: string, fn: (t: ContractTest) => void | Promise<void>): Promise<unknown>;
  ok(value: unknown, message: string): unknown;
  equal(found: unknown, wanted: unknown, message: string): unknown;
  same(found: unknown, wanted: unknown, message: string): unknown;
  fail(message: string): unknown;
  /** Ends a test whose function returns no promise (as tap's `t.end()`). */
  end(): unknown;
}

/** Runs a kit without tap and records what failed, e.g. to show a kit refuses a broken adapter. */
export class CollectingTest implements ContractTest {
  readonly failures: string[] = [];
  readonly passed: string[] = [];

  constructor(private readonly path = '') {}

  /** Whether some failure names every one of `parts` (a test of a kit checks that it caught a broken adapter). */
  caught(...parts: string[]): boolean {
    return this.failures.some((f) => parts.every((part) => f.includes(part)));
  }

  private record(ok: boolean, message: string): boolean {
    (ok ? this.passed : this.failures).push(`${this.path}${message}`);
    return ok;
  }

  async test(name: string, fn: (t: ContractTest) => void | Promise<void>): Promise<void> {
    const child = new CollectingTest(`${this.path}${name} > `);
    try {
      await fn(child);
    } catch (err) {
      child.record(false, `threw ${describeError(err)}`);
    }
    this.failures.push(...child.failures);
    this.passed.push(...child.passed);
  }

  ok(value: unknown, message: string): boolean {
    return this.record(Boolean(value), message);
  }

  equal(found: unknown, wanted: unknown, message: string): boolean {
    return this.record(found === wanted, `${message} (found ${inspect(found)}, wanted ${inspect(wanted)})`);
  }

  same(found: unknown, wanted: unknown, message: string): boolean {
    return this.record(isDeepStrictEqual(found, wanted), `${message} (found ${inspect(found, { depth: 4 })})`);
  }

  fail(message: string): boolean {
    return this.record(false, message);
  }

  end(): void {}
}

/** Something a kit is handed either ready or from a function that may be async. */
export type Lazy<T> = T | (() => T | Promise<T>);

export async function resolveLazy<T>(value: Lazy<T>): Promise<T> {
  return typeof value === 'function' ? (value as () => T | Promise<T>)() : value;
}

/** What every kit takes. */
export interface KitOptions<T> {
  /** Expected identifier (the name in config), e.g. `mail-smtp`. */
  name: string;
  /** Builds a fresh adapter; called once per case. */
  create: () => T | Promise<T>;
  /** Tears an adapter down after each case. */
  destroy?: (adapter: T) => void | Promise<void>;
  /** The package's default export (AdapterModule): kind and name are checked. */
  module?: { kind: string; name: string; optionsSchema: Joi.Schema };
  /** Valid options, and wrong ones with the option key the error message must name. */
  options?: { valid: unknown; invalid: Array<{ options: unknown; key: string }> };
  /** The class's static validateOptions (AbstractAdapter); else the module's schema is used. */
  validateOptions?: (options: unknown) => unknown;
}

/** Builds an adapter, runs `fn`, tears it down. */
export async function withAdapter<T, R>(opts: KitOptions<T>, fn: (adapter: T) => R | Promise<R>): Promise<R> {
  const adapter = await opts.create();
  try {
    return await fn(adapter);
  } finally {
    await opts.destroy?.(adapter);
  }
}

/** The cases every kind shares: identifier, module kind and name, options validation. */
export async function runCommonCases<T extends { identifier: string }>(
  t: ContractTest,
  kind: string,
  opts: KitOptions<T>,
): Promise<void> {
  await t.test(`identifier is ${opts.name}`, async (t) => {
    await withAdapter(opts, (adapter) => {
      t.equal(adapter.identifier, opts.name, 'adapter.identifier is the configured name');
    });
  });

  const mod = opts.module;
  if (mod) {
    await t.test(`the module implements the ${kind} extension point as ${opts.name}`, (t) => {
      t.equal(mod.kind, kind, 'module.kind');
      t.equal(mod.name, opts.name, 'module.name');
      t.ok(Joi.isSchema(mod.optionsSchema), 'module.optionsSchema is a joi schema');
      t.end();
    });
  }

  const options = opts.options;
  if (!options) return;
  const validate =
    opts.validateOptions ??
    (mod
      ? (o: unknown) => validateAdapterOptions(opts.name, mod.optionsSchema as Joi.ObjectSchema<unknown>, o)
      : undefined);
  if (!validate) {
    await t.test('options can be validated', (t) => {
      t.fail('give `validateOptions` or `module` with `options`');
      t.end();
    });
    return;
  }
  await t.test('valid options are accepted', (t) => {
    try {
      validate(options.valid);
      t.ok(true, 'accepted');
    } catch (err) {
      t.fail(`refused: ${describeError(err)}`);
    }
    t.end();
  });
  for (const bad of options.invalid) {
    await t.test(`wrong options are refused naming ${bad.key}`, (t) => {
      try {
        validate(bad.options);
        t.fail(`options ${inspect(bad.options)} were accepted`);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        t.ok(message.includes(bad.key), `the message names ${bad.key}: ${message}`);
      }
      t.end();
    });
  }
}

/** Problems of a value against a joi schema, as `path: message` lines (empty when it fits). */
export function problems(schema: Joi.Schema, value: unknown, prefix = ''): string[] {
  const { error } = schema.validate(value, { abortEarly: false, convert: false });
  if (!error) return [];
  return error.details.map((d) => `${prefix}${d.path.join('.') || '(value)'}: ${d.message.replace(/^"[^"]*" /, '')}`);
}

export function describeError(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return `${err.name}${typeof code === 'string' ? ` [${code}]` : ''}: ${err.message}`;
  }
  return inspect(err);
}

/**
 * Expects `fn` to reject (or throw) an AdapterError whose code is one of `codes` (any code when
 * `codes` is empty).
 */
export async function expectAdapterError(
  t: ContractTest,
  fn: () => unknown,
  codes: readonly string[],
  what: string,
): Promise<void> {
  try {
    const value = await fn();
    t.fail(
      `${what}: expected an AdapterError${codes.length ? ` (${codes.join(' | ')})` : ''}, got ${inspect(value, { depth: 2 })}`,
    );
  } catch (err) {
    const fits = isAdapterError(err) && (codes.length === 0 || codes.includes(err.code));
    t.ok(fits, `${what}: ${fits ? 'refused' : `wrong error ${describeError(err)}`}`);
  }
}

/** Rejects after `ms` unless `p` settles first. */
export function within<T>(ms: number, p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not settle within ${ms} ms`)), ms);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

/** A named forged delivery. */
export interface Forgery<D = WebhookDelivery> {
  name: string;
  delivery: Lazy<D>;
}

/** The same delivery with every header removed (no signature, no token). */
export function withoutHeaders<D extends WebhookDelivery>(d: D): D {
  return { ...d, headers: {} };
}

/** The same delivery with one byte more at the end of the body (an HMAC over the body no longer fits). */
export function withBodyChanged<D extends WebhookDelivery>(d: D): D {
  return { ...d, rawBody: Buffer.concat([d.rawBody, Buffer.from(' ')]) };
}

/** The same delivery with every header value replaced by garbage of the same kind. */
export function withGarbageHeaders<D extends WebhookDelivery>(d: D): D {
  const headers: RawHeaders = {};
  for (const [k, v] of Object.entries(d.headers)) {
    headers[k] = k.toLowerCase() === 'content-type' ? v : 'sha256=zz garbage';
  }
  return { ...d, headers };
}

/**
 * A signed delivery's forged copies, by name: headers removed, header values garbled, the body
 * changed after signing (unless the body is not signed), then the adapter's own forgeries.
 */
export async function forgeriesOf(
  signed: WebhookDelivery,
  own: Forgery[] = [],
  { bodySigned = true, extra = [] }: { bodySigned?: boolean; extra?: Array<[string, WebhookDelivery]> } = {},
): Promise<Array<[string, WebhookDelivery]>> {
  const forged: Array<[string, WebhookDelivery]> = [
    ['headers removed', withoutHeaders(signed)],
    ['header values garbled', withGarbageHeaders(signed)],
  ];
  if (bodySigned) forged.push(['body changed after signing', withBodyChanged(signed)]);
  forged.push(...extra);
  for (const f of own) forged.push([f.name, await resolveLazy(f.delivery)]);
  return forged;
}

/** A short random suffix for names the kit creates (domains, branches, jobs). */
export function kitSuffix(): string {
  return randomBytes(4).toString('hex');
}

/** True for an absolute http(s) URL. */
export function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}

/** Values of a URL's query (and of its fragment, for implicit flows). */
export function urlParamValues(value: string): string[] {
  const u = new URL(value);
  const fromHash = u.hash ? [...new URLSearchParams(u.hash.slice(1)).values()] : [];
  return [...u.searchParams.values(), ...fromHash];
}

/** Joi pieces used by several kits. */
export const shapes = {
  nonEmpty: Joi.string().min(1),
  isoDateTime: Joi.string().isoDate(),
  date: Joi.date(),
  url: Joi.string().uri({ scheme: ['http', 'https'] }),
  record: Joi.object().unknown(true),
};
