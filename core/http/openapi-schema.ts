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
  _setObjectProperties(schema: JsonSchema, spec: JoiDescription, definitions: Record<string, JsonSchema>, level: number): void;
  _setNumberFieldProperties(schema: JsonSchema, spec: JoiDescription): void;
}

// joi-to-json's type file describes only `parse(joi, mode)`; its parser classes are plain JS.
const requireCjs = createRequire(import.meta.url);
const OpenApi31Parser = requireCjs('joi-to-json/lib/parsers/open-api-3.1.js') as new (opts?: object) => JoiToJsonParser;

const COMPONENT_NAME = /^[A-Za-z0-9._-]+$/;
const RESERVED_SCHEMAS = new Set(['Error', 'ValidationError']);

export class SchemaConverter extends OpenApi31Parser {
  /** Where the current conversion comes from, for error messages. */
  where = '';

  override parse(spec: JoiDescription, defs: Record<string, JsonSchema>, level: number): JsonSchema {
    const id = spec.flags?.id;
    if (!id) return nullAsAnyOf(super.parse(spec, defs, level));
    if (!COMPONENT_NAME.test(id) || RESERVED_SCHEMAS.has(id)) {
      throw new Error(`OpenAPI: schema id "${id}" (${this.where}) is not allowed; use letters, digits, . _ - and not ${[...RESERVED_SCHEMAS].join(' or ')}`);
    }
    // `Shared.allow(null)` at a use site: the component stays non-null, the use site says null.
    const nullable = !spec.flags?.only && Array.isArray(spec.allow) && spec.allow.includes(null);
    const own = nullable ? withoutNull(spec) : spec;
    const before = defs[id];
    const ref = super.parse(own, defs, level);
    const after = defs[id];
    if (before && after && before !== after) {
      if (fingerprint(before) !== fingerprint(after)) {
        throw new Error(`OpenAPI: two different schemas carry the id "${id}" (last seen in ${this.where}); give one of them another .id()`);
      }
      defs[id] = before; // the first definition wins; a use site's own description sits beside its $ref
      if (typeof after.description === 'string' && after.description !== before.description) ref.description = after.description;
    }
    return nullable ? { anyOf: [ref, { type: 'null' }] } : ref;
  }

  override _setNumberFieldProperties(schema: JsonSchema, spec: JoiDescription): void {
    super._setNumberFieldProperties(schema, spec);
    // joi-to-json writes `greater(n)` / `less(n)` as both exclusive and inclusive bounds.
    if (schema.minimum !== undefined && schema.minimum === schema.exclusiveMinimum) delete schema.minimum;
    if (schema.maximum !== undefined && schema.maximum === schema.exclusiveMaximum) delete schema.maximum;
  }

  override _setObjectProperties(schema: JsonSchema, spec: JoiDescription, defs: Record<string, JsonSchema>, level: number): void {
    super._setObjectProperties(schema, spec, defs, level);
    if (schema.type !== 'object' && !(Array.isArray(schema.type) && schema.type.includes('object'))) return;
    const properties = schema.properties as Record<string, unknown> | undefined;
    for (const pattern of spec.patterns ?? []) {
      if (pattern.regex && properties) delete properties[pattern.regex]; // joi-to-json copies it there too
      if (!pattern.regex && pattern.rule) schema.additionalProperties = this.parse(pattern.rule, defs, level + 1);
    }
    // `Joi.object()` without keys accepts any keys (joi-to-json says none).
    if (spec.keys === undefined && !spec.patterns?.length && spec.flags?.unknown !== false) schema.additionalProperties = true;
    if (spec.keys === undefined && properties && !Object.keys(properties).length) delete schema.properties;
  }
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

/** A joi schema (of any joi version), as opposed to hapi's own compiled rules or functions. */
export function isJoi(value: unknown): value is Joi.Schema {
  return !!value && typeof value === 'object' && typeof (value as { describe?: unknown }).describe === 'function'
    && typeof (value as { type?: unknown }).type === 'string';
}
