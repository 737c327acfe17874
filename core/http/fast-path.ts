import type Joi from 'joi';
import { backedBy, type JoiBacked } from './validators.js';

/**
 * A route validator with a fast path, for hot routes whose payloads are mostly plain (the widget's
 * passive events). joi spends ~230 µs and ~60 KB of short-lived objects on a payload of five
 * events; at thousands of events a second that garbage is what makes the young generation's
 * scavenges long (docs/decisions.md).
 *
 * The fast path is a checker compiled from the schema's own description (`describe()`), so the
 * rules are written once, in joi. It accepts a value only when joi would accept it unchanged: the
 * types, lengths, counts, allowed values and required keys it understands all hold, and nothing
 * asks for a conversion, a default or a rule it does not know. Anything else (an invalid value, a
 * string joi would convert, a key whose rules it does not know) goes to joi itself, which answers
 * as it always did, error messages included. The joi schema stays the route's documentation
 * (`schemaOf` in core/http/validators.ts, read by core/http/openapi.ts).
 */
export type FastValidator = JoiBacked<(value: unknown, options: object) => Promise<unknown>>;

/** A check of one value: true when joi would accept it as it is. */
type Check = (value: unknown) => boolean;

interface Description {
  type: string;
  flags?: Record<string, unknown>;
  rules?: Array<{ name: string; args?: Record<string, unknown> }>;
  allow?: unknown[];
  keys?: Record<string, Description>;
  items?: Description[];
  [other: string]: unknown;
}

// Description fields that change what joi accepts or returns beyond what the checks below model.
const KNOWN_FIELDS = new Set(['type', 'flags', 'rules', 'allow', 'keys', 'items']);
const KNOWN_FLAGS = new Set(['presence', 'only', 'description', 'label', 'unknown']);
// Validation options under which "accepted unchanged" means the same as with joi's defaults.
const NEUTRAL_OPTIONS = new Set(['context', 'abortEarly']);

/** The size bounds of min/max/length rules (characters or items), or null for any other rule or argument. */
function sizeBounds(rules: NonNullable<Description['rules']>, min: number): { min: number; max: number } | null {
  let max = Infinity;
  for (const r of rules) {
    const limit = r.args?.limit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0 || Object.keys(r.args!).length !== 1) return null;
    if (r.name === 'max' || r.name === 'length') max = Math.min(max, limit);
    if (r.name === 'min' || r.name === 'length') min = Math.max(min, limit);
    else if (r.name !== 'max') return null;
  }
  return { min, max };
}

/** The check of a described schema, or null when it uses anything the fast path does not model. */
function compile(d: Description): Check | null {
  if (Object.keys(d).some((k) => !KNOWN_FIELDS.has(k))) return null;
  const flags = d.flags ?? {};
  if (Object.keys(flags).some((k) => !KNOWN_FLAGS.has(k))) return null;
  if (flags.presence !== undefined && flags.presence !== 'required' && flags.presence !== 'optional') return null;
  const allow = d.allow ?? [];
  if (allow.some((v) => v !== null && typeof v === 'object')) return null; // references, special values
  const allowed = new Set(allow);
  const only = flags.only === true;
  let body: Check | null;
  switch (d.type) {
    case 'string':
      body = stringCheck(d.rules ?? []);
      break;
    case 'number':
      body = numberCheck(d.rules ?? []);
      break;
    case 'boolean':
      body = (d.rules ?? []).length ? null : (v) => typeof v === 'boolean';
      break;
    case 'object':
      body = objectCheck(d);
      break;
    case 'array':
      body = arrayCheck(d);
      break;
    default:
      body = null;
  }
  if (!body) return null;
  if (only) return (v) => allowed.has(v);
  const check = body;
  return allowed.size ? (v) => allowed.has(v) || check(v) : check;
}

// isoDate: joi converts an accepted date to Date#toISOString's form, so only that form passes as it is.
const ISO_FORM = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const isIsoAsIs = (v: string): boolean => ISO_FORM.test(v) && new Date(v).toISOString() === v;

function stringCheck(rules: NonNullable<Description['rules']>): Check | null {
  const isIso = (r: (typeof rules)[number]) => r.name === 'isoDate' && !r.args;
  const iso = rules.some(isIso);
  // joi refuses '' unless it is allowed
  const b = sizeBounds(rules.filter((r) => !isIso(r)), 1);
  if (!b) return null;
  return (v) => typeof v === 'string' && v.length >= b.min && v.length <= b.max && (!iso || isIsoAsIs(v));
}

function numberCheck(rules: NonNullable<Description['rules']>): Check | null {
  let integer = false;
  let min = -Number.MAX_SAFE_INTEGER;
  let max = Number.MAX_SAFE_INTEGER; // joi refuses unsafe numbers by default
  for (const r of rules) {
    const limit = r.args?.limit;
    if (r.name === 'integer' && !r.args) integer = true;
    else if ((r.name === 'min' || r.name === 'max') && typeof limit === 'number' && Number.isFinite(limit) && Object.keys(r.args!).length === 1) {
      if (r.name === 'min') min = Math.max(min, limit);
      else max = Math.min(max, limit);
    } else return null;
  }
  // -0 is returned as 0 by joi: not "as it is".
  return (v) => typeof v === 'number' && v >= min && v <= max && !Object.is(v, -0) && (!integer || Number.isInteger(v));
}

function arrayCheck(d: Description): Check | null {
  const b = sizeBounds(d.rules ?? [], 0);
  if (!b || (d.items?.length ?? 0) !== 1) return null;
  const item = d.items![0]!;
  // An item must be there and be valid (joi refuses sparse arrays by default).
  if (item.flags?.presence === 'optional') return null;
  const check = compile(item);
  if (!check) return null;
  return (v) => {
    if (!Array.isArray(v) || v.length < b.min || v.length > b.max) return false;
    for (let i = 0; i < v.length; i++) if (v[i] === undefined || !check(v[i])) return false;
    return true;
  };
}

function objectCheck(d: Description): Check | null {
  if (!d.keys) return null; // Joi.object() without keys takes anything: leave it to joi
  const unknown = d.flags?.unknown === true;
  const keys: Array<{ name: string; required: boolean; check: Check | null }> = Object.entries(d.keys).map(([name, kd]) => ({
    name,
    // A key with a default is filled in by joi when it is absent: not "as it is" then.
    required: kd.flags?.presence === 'required' || (!!kd.flags && 'default' in kd.flags),
    check: compile(kd),
  }));
  const byName = new Map(keys.map((k) => [k.name, k]));
  return (v) => {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
    const o = v as Record<string, unknown>;
    for (const k of keys) {
      const value = o[k.name];
      if (value === undefined) {
        if (k.required || Object.prototype.hasOwnProperty.call(o, k.name)) return false;
        continue;
      }
      // A key whose rules the fast path does not know: joi decides, whenever the key is there.
      if (!k.check || !k.check(value)) return false;
    }
    if (!unknown) for (const name in o) if (!byName.has(name)) return false;
    return true;
  };
}

/**
 * `schema` for a route's `validate.payload` with the fast path in front. Unusual validation
 * options (anything but `abortEarly` and hapi's `context`) always go to joi.
 */
export function withFastPath(schema: Joi.Schema): FastValidator {
  const check = compile(schema.describe() as Description);
  const validator = async (value: unknown, options: object) => {
    if (check && Object.keys(options).every((k) => NEUTRAL_OPTIONS.has(k)) && check(value)) return value;
    return schema.validateAsync(value, options);
  };
  return backedBy(validator, schema);
}

/** Whether the fast path of `schema` would take `value` (for tests). */
export function fastAccepts(schema: Joi.Schema, value: unknown): boolean {
  const check = compile(schema.describe() as Description);
  return !!check && check(value);
}
