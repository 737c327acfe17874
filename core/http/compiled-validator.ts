import { _, type KeywordCxt } from 'ajv';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type Joi from 'joi';
import { joiToJsonSchema, type JoiDescription } from './openapi-schema.js';
import type { JsonSchema } from './openapi-types.js';
import { backedBy, type JoiBacked } from './validators.js';

/**
 * A route validator for hot routes whose payloads are mostly plain (the widget's passive events):
 * an ajv check compiled from the JSON Schema of the route's own joi schema, with joi behind it.
 * joi spends ~230 µs and ~60 KB of short-lived objects on a payload of five events; at thousands
 * of events a second that garbage is what makes the young generation's scavenges long
 * (docs/decisions.md, bench/results/2026-11-27-validator.md).
 *
 * The check decides one thing: joi would accept this value unchanged. When it says yes, the value
 * is the route's payload as it is; otherwise joi validates it and answers as it always did (its
 * conversions, defaults and error messages). The joi schema stays the route's documentation
 * (`schemaOf` in core/http/validators.ts, read by core/http/openapi.ts), and its JSON Schema comes
 * from the same converter the OpenAPI document uses (core/http/openapi-schema.ts).
 *
 * That JSON Schema is written for readers, so before converting, `asIs` narrows the description to
 * what the check may take on its own; a part of the schema it does not model becomes "never" (the
 * value goes to joi whenever that part is present):
 * - types: string, number, boolean, object with keys, array with one item schema; anything else
 *   (any, alternatives, date, binary, link, objects without keys) goes to joi;
 * - strings: min, max, length, pattern (a regex without flags, not inverted) and isoDate, which
 *   passes only in `Date#toISOString` form (joi rewrites any other); '' only where joi allows it;
 *   trim, case, replace, email, uri, hex and any other rule go to joi;
 * - numbers: integer, min, max, greater, less, within ±Number.MAX_SAFE_INTEGER (joi refuses unsafe
 *   numbers), never -0 (joi returns 0); precision, multiple, port, sign go to joi;
 * - objects: keys only (no patterns, renames, when, and/or/xor, min/max keys); `.unknown()` lets
 *   other keys through, else they go to joi; a key with a default must be there (joi fills it in);
 * - arrays: min, max, length with one item schema, not optional (no sparse, single, unique, has); a
 *   required item schema asks for one item at least;
 * - flags other than presence (required, optional), only, unknown, id, description, label and
 *   default, and any preferences (`.prefs()`, truthy/falsy, empty, whens, ...) go to joi.
 * String lengths count UTF-16 code units as joi does (keywords minUnits/maxUnits), patterns compile as
 * joi's do (`unicodeRegExp: false`). Validation options other than abortEarly and hapi's context
 * always go to joi.
 */
export type CompiledValidator = JoiBacked<(value: unknown, options: object) => Promise<unknown>>;

/** A description the converter turns into `{ not: {} }`: the check never takes a value here. */
const NEVER: JoiDescription = { type: 'any', flags: { presence: 'forbidden' } };
const KNOWN_FIELDS = new Set(['type', 'flags', 'rules', 'allow', 'keys', 'items']);
const KNOWN_FLAGS = new Set(['presence', 'only', 'unknown', 'description', 'label']);
const NEUTRAL_OPTIONS = new Set(['context', 'abortEarly']);
const ISO_FORMAT = 'joi-iso-date-as-is';
const LENGTH_KEYWORDS = [
  ['minLength', 'minUnits'],
  ['maxLength', 'maxUnits'],
] as const;

type Rule = { name: string; args?: Record<string, unknown> };

/** The description narrowed to what the compiled check models (see above), or NEVER. */
export function asIs(d: JoiDescription): JoiDescription {
  if (Object.keys(d).some((k) => !KNOWN_FIELDS.has(k))) return NEVER;
  // An id only names the schema; a default is handled by the object holding the key (objectAsIs).
  const {
    id: _id,
    default: _default,
    ...flags
  } = (d.flags ?? {}) as NonNullable<JoiDescription['flags']> & { default?: unknown };
  if (Object.keys(flags).some((k) => !KNOWN_FLAGS.has(k))) return NEVER;
  if (flags.presence !== undefined && flags.presence !== 'required' && flags.presence !== 'optional') return NEVER;
  const allow = d.allow ?? [];
  if (allow.some((v) => v !== null && typeof v === 'object')) return NEVER; // references, special values
  const rules = (d.rules ?? []) as Rule[];
  const base: JoiDescription = { type: d.type, flags, ...(allow.length ? { allow } : {}) };
  switch (d.type) {
    case 'string':
      return stringAsIs(base, rules, allow);
    case 'number':
      return numberAsIs(base, rules);
    case 'boolean':
      return rules.length ? NEVER : base;
    case 'object':
      return rules.length ? NEVER : objectAsIs(base, d);
    case 'array':
      return arrayAsIs(base, d, rules);
    default:
      return NEVER;
  }
}

const onlyLimit = (r: Rule) => typeof r.args?.limit === 'number' && Object.keys(r.args).length === 1;
const sizeRule = (r: Rule) =>
  ['min', 'max', 'length'].includes(r.name) && onlyLimit(r) && Number.isInteger(r.args!.limit);
const limitOf = (r: Rule) => r.args!.limit as number;

/**
 * Size rules folded into one min and one max, the narrowest of them and of `min` (the converter
 * keeps the last rule of a name, so a bound added after joi's own would widen it).
 */
function sizeBounds(rules: Rule[], min: number): Rule[] {
  let max = Infinity;
  for (const r of rules) {
    if (r.name !== 'min') max = Math.min(max, limitOf(r));
    if (r.name !== 'max') min = Math.max(min, limitOf(r));
  }
  return [
    ...(min > 0 ? [{ name: 'min', args: { limit: min } }] : []),
    ...(max < Infinity ? [{ name: 'max', args: { limit: max } }] : []),
  ];
}

function stringAsIs(base: JoiDescription, rules: Rule[], allow: unknown[]): JoiDescription {
  const kept: Rule[] = [];
  for (const r of rules) {
    const regex = r.args?.regex;
    if (sizeRule(r)) continue;
    if (r.name === 'isoDate' && !r.args) kept.push({ name: 'isoDate' });
    else if (
      r.name === 'pattern' &&
      typeof regex === 'string' &&
      regex.endsWith('/') &&
      !(r.args!.options as { invert?: boolean } | undefined)?.invert
    ) {
      kept.push({ name: 'pattern', args: { regex } });
    } else return NEVER;
  }
  // joi refuses '' unless it is allowed; the converter drops allowed values, which only narrows the check.
  return { ...base, rules: [...kept, ...sizeBounds(rules.filter(sizeRule), allow.includes('') ? 0 : 1)] };
}

function numberAsIs(base: JoiDescription, rules: Rule[]): JoiDescription {
  const bound = (r: Rule) =>
    ['min', 'max', 'greater', 'less'].includes(r.name) && onlyLimit(r) && Number.isFinite(r.args!.limit);
  if (!rules.every((r) => (r.name === 'integer' && !r.args) || bound(r))) return NEVER;
  // joi refuses unsafe numbers unless told otherwise
  let min = -Number.MAX_SAFE_INTEGER;
  let max = Number.MAX_SAFE_INTEGER;
  for (const r of rules) if (r.name === 'min') min = Math.max(min, limitOf(r));
  for (const r of rules) if (r.name === 'max') max = Math.min(max, limitOf(r));
  const kept = rules.filter((r) => r.name !== 'min' && r.name !== 'max');
  return { ...base, rules: [...kept, { name: 'min', args: { limit: min } }, { name: 'max', args: { limit: max } }] };
}

function objectAsIs(base: JoiDescription, d: JoiDescription): JoiDescription {
  if (!d.keys) return NEVER; // Joi.object() without keys takes anything: leave it to joi
  const keys: Record<string, JoiDescription> = {};
  for (const [name, kd] of Object.entries(d.keys)) {
    const key = asIs(kd);
    // A key with a default is filled in by joi when it is absent: as it is only when it is there.
    const required = kd.flags?.presence === 'required' || 'default' in (kd.flags ?? {});
    if (key === NEVER && required) return NEVER;
    keys[name] = key === NEVER || !required ? key : { ...key, flags: { ...key.flags, presence: 'required' } };
  }
  // unknown: false and absent mean the same (no other keys)
  return { ...base, flags: { ...base.flags, unknown: base.flags?.unknown === true }, keys };
}

function arrayAsIs(base: JoiDescription, d: JoiDescription, rules: Rule[]): JoiDescription {
  const items = d.items as JoiDescription[] | undefined;
  if (!rules.every(sizeRule) || items?.length !== 1) return NEVER;
  // An item must be there and be valid (joi refuses sparse arrays by default).
  if (items[0].flags?.presence === 'optional') return NEVER;
  const item = asIs(items[0]);
  // A required item schema: joi wants at least one item matching it.
  return item === NEVER
    ? NEVER
    : { ...base, rules: sizeBounds(rules, item.flags?.presence === 'required' ? 1 : 0), items: [item] };
}

/**
 * The converter's JSON Schema, with what JSON Schema says otherwise than joi: lengths in UTF-16
 * code units (JSON Schema counts code points), joi's ISO form, and no -0.
 */
function tighten(schema: JsonSchema): JsonSchema {
  if (Array.isArray(schema)) return schema.map(tighten) as never;
  if (!schema || typeof schema !== 'object') return schema;
  const out: JsonSchema = Object.fromEntries(
    Object.entries(schema).map(([k, v]) => [k, k === 'enum' || k === 'const' ? v : tighten(v as JsonSchema)]),
  );
  for (const [from, to] of LENGTH_KEYWORDS) {
    if (out[from] === undefined) continue;
    out[to] = out[from];
    delete out[from];
  }
  if (out.format === 'date-time') out.format = ISO_FORMAT;
  else if (out.format !== undefined) {
    const format = typeof out.format === 'string' ? out.format : JSON.stringify(out.format);
    throw new Error(`compiled validator: format ${format} is not modelled`);
  }
  const types = Array.isArray(out.type) ? out.type : [out.type];
  if (types.includes('number') || types.includes('integer')) out.notNegativeZero = true;
  return out;
}

// isoDate: joi converts an accepted date to Date#toISOString's form, so only that form passes as it is.
const ISO_FORM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const isIsoAsIs = (v: string): boolean => ISO_FORM.test(v) && new Date(v).toISOString() === v;

const ajv = new Ajv2020({
  strict: true,
  allowUnionTypes: true,
  unicodeRegExp: false,
  allErrors: false,
  messages: false,
});
ajv.addFormat(ISO_FORMAT, { type: 'string', validate: isIsoAsIs });
ajv.addKeyword({
  keyword: 'notNegativeZero',
  type: 'number',
  schemaType: 'boolean',
  code: (cxt: KeywordCxt) => cxt.fail(_`Object.is(${cxt.data}, -0)`),
});
ajv.addKeyword({
  keyword: 'minUnits',
  type: 'string',
  schemaType: 'number',
  // ajv checks the keyword's value against schemaType: a number.
  code: (cxt: KeywordCxt) => cxt.fail(_`${cxt.data}.length < ${cxt.schema as number}`),
});
ajv.addKeyword({
  keyword: 'maxUnits',
  type: 'string',
  schemaType: 'number',
  code: (cxt: KeywordCxt) => cxt.fail(_`${cxt.data}.length > ${cxt.schema as number}`),
});

/** The JSON Schema the compiled check validates against (for tests and for reading). */
export function asIsJsonSchema(schema: Joi.Schema): JsonSchema {
  return tighten(joiToJsonSchema(asIs(schema.describe())));
}

const compiled = new WeakMap<Joi.Schema, ValidateFunction>();
function checkOf(schema: Joi.Schema): ValidateFunction {
  let check = compiled.get(schema);
  if (!check) compiled.set(schema, (check = ajv.compile(asIsJsonSchema(schema))));
  return check;
}

/**
 * `schema` for a route's `validate.payload`, with the compiled check in front of joi. The JSON Schema is
 * made now (a schema the check cannot model fails the start); ajv compiles it, and its own meta-schema
 * the first time, at the route's first request, off the start path (~0.3 s of a start, bench/results/2026-11-27-boot-2.md).
 */
export function withCompiledCheck(schema: Joi.Schema): CompiledValidator {
  asIsJsonSchema(schema);
  let check: ValidateFunction | null = null;
  const validator = async (value: unknown, options: object): Promise<unknown> => {
    check ??= checkOf(schema);
    if (Object.keys(options).every((k) => NEUTRAL_OPTIONS.has(k)) && check(value)) return value;
    return schema.validateAsync(value, options);
  };
  return backedBy(validator, schema);
}

/** Whether the compiled check of `schema` takes `value` as it is (for tests). */
export function compiledAccepts(schema: Joi.Schema, value: unknown): boolean {
  return checkOf(schema)(value) === true;
}
