/** The parameters of an OpenAPI operation, from the JSON schemas of a route's params, query and headers. */
import { asRecord } from './openapi-route.js';
import type { JsonSchema, OpenApiParameter } from './openapi-types.js';

const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

export function pathParameters(
  names: string[],
  schema: JsonSchema | undefined,
  defs: Record<string, JsonSchema>,
): OpenApiParameter[] {
  const props = propertiesOf(schema, defs);
  return names.map((name) => parameter(name, 'path', props?.[name] ?? { type: 'string' }, true));
}

export function objectParameters(
  where: 'query' | 'header',
  schema: JsonSchema | undefined,
  defs: Record<string, JsonSchema>,
): OpenApiParameter[] {
  const props = propertiesOf(schema, defs);
  if (!props) return [];
  const listed = resolve(schema, defs)?.required;
  const required = new Set(Array.isArray(listed) ? (listed as string[]) : []);
  return Object.entries(props)
    .filter(([name]) => where !== 'header' || !IGNORED_HEADERS.has(name.toLowerCase()))
    .map(([name, s]) => parameter(name, where, s, required.has(name)));
}

function parameter(
  name: string,
  where: OpenApiParameter['in'],
  schema: JsonSchema,
  required: boolean,
): OpenApiParameter {
  const { description, deprecated, ...rest } = schema;
  const p: OpenApiParameter = { name, in: where, required, schema: rest };
  if (typeof description === 'string') p.description = description;
  if (deprecated === true) p.deprecated = true;
  const type = rest.type;
  if (where === 'query' && (type === 'array' || (Array.isArray(type) && type.includes('array')))) {
    p.style = 'form';
    p.explode = true;
  }
  return p;
}

function resolve(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): JsonSchema | undefined {
  const ref = typeof schema?.$ref === 'string' ? schema.$ref.replace('#/components/schemas/', '') : undefined;
  return ref ? defs[ref] : schema;
}

function propertiesOf(
  schema: JsonSchema | undefined,
  defs: Record<string, JsonSchema>,
): Record<string, JsonSchema> | undefined {
  return asRecord(resolve(schema, defs)?.properties) as Record<string, JsonSchema> | undefined;
}
