/** joi → JSON Schema for the OpenAPI document: joi-to-json's OpenAPI 3.1 parser with corrections. */
import { createRequire } from 'node:module';
import type Joi from 'joi';
import type { JsonSchema } from './openapi-types.js';

// ---------------------------------------------------------------------------------------------
// joi → JSON Schema (joi-to-json's OpenAPI 3.1 parser, with a few corrections)

export interface JoiDescription {
  type?: string;
  flags?: { id?: string; only?: boolean; unknown?: boolean; presence?: string; description?: string };
  allow?: unknown[];
  keys?: Record<string, JoiDescription>;
  patterns?: { regex?: string; schema?: JoiDescription; rule?: JoiDescription }[];
  [key: string]: unknown;
}

interface JoiToJsonParser {
  parse(spec: JoiDescription, definitions: Record<string, JsonSchema>, level: number): JsonSchema;
  _setObjectProperties(
    schema: JsonSchema,
    spec: JoiDescription,
    definitions: Record<string, JsonSchema>,
    level: number,
  ): void;
  _setNumberFieldProperties(schema: JsonSchema, spec: JoiDescription): void;
  _setStringFieldProperties(schema: JsonSchema, spec: JoiDescription): void;
  _setAnyProperties(schema: JsonSchema, spec: JoiDescription): void;
  _addNullTypeIfNullable(schema: JsonSchema, spec: JoiDescription): void;
  _setConditionProperties(
    schema: JsonSchema,
    spec: JoiDescription,
    defs: Record<string, JsonSchema>,
    level: number,
    field: string,
    logic?: string,
  ): void;
}

/** A `.when()` of a key, as `describe()` gives it. */
interface JoiWhen {
  ref?: { path?: string[]; ancestor?: number; type?: string };
  is?: JoiDescription;
  then?: JoiDescription;
  otherwise?: JoiDescription;
  switch?: unknown;
}

// joi-to-json's type file describes only `parse(joi, mode)`; its parser classes are plain JS.
const requireCjs = createRequire(import.meta.url);
const OpenApi31Parser = requireCjs('joi-to-json/lib/parsers/open-api-3.1.js') as new (opts?: object) => JoiToJsonParser;

/**
 * `.xor(a, b)`: exactly one of the keys. joi-to-json writes `if/then: false/else`, which some
 * tools refuse (a boolean schema) and which says the same as this.
 */
const LOGICAL_OPS = {
  xor: (schema: JsonSchema, dependency: { peers: string[] }) => {
    schema.oneOf = dependency.peers.map((peer) => ({ required: [peer] }));
  },
};

const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;
const RESERVED_SCHEMAS = new Set(['Error', 'ValidationError']);

export class SchemaConverter extends OpenApi31Parser {
  /** Where the current conversion comes from, for error messages. */
  where = '';

  constructor() {
    super({ logicalOpParser: LOGICAL_OPS });
  }

  override parse(spec: JoiDescription, defs: Record<string, JsonSchema>, level: number): JsonSchema {
    const id = spec.flags?.id;
    if (!id) return nullAsAnyOf(super.parse(spec, defs, level));
    if (!COMPONENT_NAME.test(id) || RESERVED_SCHEMAS.has(id)) {
      throw new Error(
        `OpenAPI: schema id "${id}" (${this.where}) is not allowed; use letters, digits, . _ - and not ${[...RESERVED_SCHEMAS].join(' or ')}`,
      );
    }
    // `Shared.allow(null)` at a use site: the component stays non-null, the use site says null.
    const nullable = !spec.flags?.only && Array.isArray(spec.allow) && spec.allow.includes(null);
    const own = nullable ? withoutNull(spec) : spec;
    const before = defs[id];
    const ref = super.parse(own, defs, level);
    const after = defs[id];
    if (before && after && before !== after) {
      if (fingerprint(before) !== fingerprint(after)) {
        throw new Error(
          `OpenAPI: two different schemas carry the id "${id}" (last seen in ${this.where}); give one of them another .id()`,
        );
      }
      defs[id] = before; // the first definition wins; a use site's own description sits beside its $ref
      if (typeof after.description === 'string' && after.description !== before.description)
        ref.description = after.description;
    }
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  }

  override _setNumberFieldProperties(schema: JsonSchema, spec: JoiDescription): void {
    super._setNumberFieldProperties(schema, spec);
    // joi-to-json writes `greater(n)` / `less(n)` as both exclusive and inclusive bounds.
    if (schema.minimum !== undefined && schema.minimum === schema.exclusiveMinimum) delete schema.minimum;
    if (schema.maximum !== undefined && schema.maximum === schema.exclusiveMaximum) delete schema.maximum;
  }

  /** `Joi.any()` accepts anything: no type at all (joi-to-json lists every type, arrays without items). */
  override _setAnyProperties(schema: JsonSchema, spec: JoiDescription): void {
    if (schema.type === 'any') delete schema.type;
    else super._setAnyProperties(schema, spec);
  }

  override _addNullTypeIfNullable(schema: JsonSchema, spec: JoiDescription): void {
    if (spec.type !== 'any') super._addNullTypeIfNullable(schema, spec);
  }

  /** `uri({ scheme: ['https'] })` only accepts those schemes: say so with a pattern. */
  override _setStringFieldProperties(schema: JsonSchema, spec: JoiDescription): void {
    super._setStringFieldProperties(schema, spec);
    for (const rule of (spec.rules ?? []) as { name?: string; args?: { options?: { scheme?: unknown } } }[]) {
      const scheme = rule.name === 'uri' ? rule.args?.options?.scheme : undefined;
      const schemes = (Array.isArray(scheme) ? scheme : [scheme]).filter((x): x is string => typeof x === 'string');
      if (!schemes.length || schema.pattern !== undefined) continue;
      schema.pattern =
        schemes.length === 1 ? `^${escapeRegex(schemes[0])}:` : `^(?:${schemes.map(escapeRegex).join('|')}):`;
    }
  }

  /**
   * A key's `.when()` is written where its condition lives, on the object (below); joi-to-json's
   * own rendering on the key (`oneOf` of the branches) accepts or refuses the wrong bodies.
   */
  override _setConditionProperties(
    schema: JsonSchema,
    spec: JoiDescription,
    defs: Record<string, JsonSchema>,
    level: number,
    field: string,
    logic?: string,
  ): void {
    if (field !== 'whens') super._setConditionProperties(schema, spec, defs, level, field, logic);
  }

  override _setObjectProperties(
    schema: JsonSchema,
    spec: JoiDescription,
    defs: Record<string, JsonSchema>,
    level: number,
  ): void {
    const conditions = siblingConditions(spec);
    super._setObjectProperties(
      schema,
      conditions.length ? keysAllowingEveryBranch(spec, conditions) : spec,
      defs,
      level,
    );
    if (schema.type !== 'object' && !(Array.isArray(schema.type) && schema.type.includes('object'))) return;
    if (conditions.length) this.addConditionals(schema, spec, conditions, defs, level);
    const properties = schema.properties as Record<string, unknown> | undefined;
    for (const pattern of spec.patterns ?? []) {
      if (pattern.regex && properties) delete properties[pattern.regex]; // joi-to-json copies it there too
      if (!pattern.regex && pattern.rule) schema.additionalProperties = this.parse(pattern.rule, defs, level + 1);
    }
    // `Joi.object()` without keys accepts any keys (joi-to-json says none).
    if (spec.keys === undefined && !spec.patterns?.length && spec.flags?.unknown !== false)
      schema.additionalProperties = true;
    if (spec.keys === undefined && properties && !Object.keys(properties).length) delete schema.properties;
  }

  /**
   * `b: X.when('a', { is: v, then: T, otherwise: O })` → on the object, `if: {properties: {a: v},
   * required: [a]}` with `then`/`else` saying what T and O ask of `b`: required, forbidden
   * (`not: {}`), or a narrower schema. Keys with the same condition share one if/then/else.
   */
  private addConditionals(
    schema: JsonSchema,
    spec: JoiDescription,
    conditions: SiblingCondition[],
    defs: Record<string, JsonSchema>,
    level: number,
  ): void {
    const groups = new Map<string, SiblingCondition[]>();
    for (const c of conditions) {
      const key = `${c.ref}\u0000${stableJson(c.when.is ?? null)}`;
      groups.set(key, [...(groups.get(key) ?? []), c]);
    }
    const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
    const all: JsonSchema[] = [];
    for (const group of groups.values()) {
      const { ref, when } = group[0];
      const is = when.is ?? { type: 'any', flags: { presence: 'required' } };
      const condition: JsonSchema = {
        properties: { [ref]: this.parse({ ...is, flags: { ...is.flags, presence: undefined } }, defs, level + 1) },
      };
      if (is.flags?.presence !== 'optional') condition.required = [ref];
      const branch = (pick: 'then' | 'otherwise'): JsonSchema | undefined => {
        const required: string[] = [];
        const narrowed: Record<string, JsonSchema> = {};
        for (const c of group) {
          const b = c.when[pick];
          if (!b) continue;
          // Forbidden: present, it matches nothing (`not: {}`; a boolean `false` schema trips some tools).
          if (b.flags?.presence === 'forbidden') {
            narrowed[c.key] = { not: {} };
            continue;
          }
          const own = this.parse(concatBranch(c.base, b), defs, level + 1);
          const same = stableJson(own) === stableJson(properties[c.key] ?? null);
          if (!same) narrowed[c.key] = own;
          // A required key is named in the branch's properties too (`{}`: the object's own schema
          // of it applies), as linters look for it there.
          if (b.flags?.presence === 'required') {
            required.push(c.key);
            narrowed[c.key] ??= {};
          }
        }
        const out: JsonSchema = {};
        if (Object.keys(narrowed).length) out.properties = narrowed;
        if (required.length) out.required = required;
        return Object.keys(out).length ? out : undefined;
      };
      const then = branch('then');
      const otherwise = branch('otherwise');
      if (!then && !otherwise) continue;
      all.push({ if: condition, ...(then ? { then } : {}), ...(otherwise ? { else: otherwise } : {}) });
    }
    if (!all.length) return;
    if (all.length === 1 && !schema.allOf && !schema.if) Object.assign(schema, all[0]);
    else schema.allOf = [...((schema.allOf as JsonSchema[] | undefined) ?? []), ...all];
  }
}

interface SiblingCondition {
  key: string;
  ref: string;
  when: JoiWhen;
  /** The key's own description, without its whens. */
  base: JoiDescription;
}

/** The keys' `.when()`s that test a sibling key (`when('kind', …)`), each with its key. */
function siblingConditions(spec: JoiDescription): SiblingCondition[] {
  const out: SiblingCondition[] = [];
  for (const [key, child] of Object.entries(spec.keys ?? {})) {
    const whens = child.whens as JoiWhen[] | undefined;
    if (!Array.isArray(whens)) continue;
    const { whens: _w, ...base } = child;
    for (const when of whens) {
      const path = when.ref?.path;
      const sibling =
        !when.switch &&
        Array.isArray(path) &&
        path.length === 1 &&
        (when.ref?.ancestor ?? 1) === 1 &&
        (when.ref?.type ?? 'value') === 'value';
      if (sibling) out.push({ key, ref: path[0], when, base });
    }
  }
  return out;
}

/**
 * The object's keys as the properties list shows them: without their whens, and accepting what
 * any branch accepts (`otherwise: Joi.allow(null)` makes the key nullable there; the branch that
 * does not allow null says so in its own `then`).
 */
function keysAllowingEveryBranch(spec: JoiDescription, conditions: SiblingCondition[]): JoiDescription {
  const keys: Record<string, JoiDescription> = { ...spec.keys };
  for (const c of conditions) {
    const current = keys[c.key];
    const { whens: _w, ...plain } = current;
    const allow = [...(plain.allow ?? [])];
    for (const b of [c.when.then, c.when.otherwise])
      for (const v of b?.allow ?? []) if (!allow.some((a) => stableJson(a) === stableJson(v))) allow.push(v);
    keys[c.key] = allow.length ? { ...plain, allow } : plain;
  }
  return { ...spec, keys };
}

/** joi's concat of a key and a branch (`Joi.required()`, `Joi.allow(null)`, or a schema of the same type). */
function concatBranch(base: JoiDescription, branch: JoiDescription): JoiDescription {
  const out: JoiDescription = { ...base, flags: { ...base.flags, ...branch.flags } };
  const allow = [...(base.allow ?? []), ...(branch.allow ?? [])];
  if (allow.length) out.allow = allow;
  if (branch.type === base.type && Array.isArray(branch.rules))
    out.rules = [...((base.rules as unknown[] | undefined) ?? []), ...(branch.rules as unknown[])];
  delete out.flags!.presence;
  return out;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function withoutNull(spec: JoiDescription): JoiDescription {
  const allow = (spec.allow ?? []).filter((v) => v !== null);
  const copy: JoiDescription = { ...spec };
  if (allow.length) copy.allow = allow;
  else delete copy.allow;
  return copy;
}

/** joi-to-json marks `alternatives().allow(null)` as `type: 'null'` beside the anyOf; make it a choice. */
function nullAsAnyOf(schema: JsonSchema): JsonSchema {
  if (schema.type !== 'null') return schema;
  const { type: _type, description, default: dflt, examples, ...rest } = schema;
  const keys = Object.keys(rest);
  if (!keys.length || (keys.length === 1 && 'enum' in rest)) return schema;
  const out: JsonSchema = { anyOf: [rest, { type: 'null' }] };
  if (description !== undefined) out.description = description;
  if (dflt !== undefined) out.default = dflt;
  if (examples !== undefined) out.examples = examples;
  return out;
}

function fingerprint(schema: JsonSchema): string {
  const { description: _d, examples: _e, title: _t, ...shape } = schema;
  return stableJson(shape);
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The JSON Schema of one joi description, as the OpenAPI document writes it; schemas with an `.id()`
 * go to `defs` and are referenced (#/components/schemas/…). Also used by core/http/compiled-validator.ts.
 */
export function joiToJsonSchema(description: JoiDescription, defs: Record<string, JsonSchema> = {}): JsonSchema {
  return new SchemaConverter().parse(description, defs, 1);
}

/** A joi schema (of any joi version), as opposed to hapi's own compiled rules or functions. */
export function isJoi(value: unknown): value is Joi.Schema {
  return (
    !!value &&
    typeof value === 'object' &&
    typeof (value as { describe?: unknown }).describe === 'function' &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}
