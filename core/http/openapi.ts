/**
 * The OpenAPI 3.1 document, built from the route table (`server.table()`) and the joi schemas that
 * validate requests and responses, and the interactive docs page at `/docs`.
 *
 * What a route contributes (see docs/openapi.md):
 * - `options.id` → operationId (routes without one are internal and left out), `tags` → tags,
 *   `description` → summary, `notes` → description, `plugins.patchwell.roles` / `staff` → a line
 *   of the description.
 * - `validate.params` / `query` / `headers` → parameters (query arrays: `style: form, explode:
 *   true`); `validate.payload` → requestBody (`application/json`, or
 *   `plugins.patchwell.rawBody.contentType`).
 * - `response.status` / `response.schema` → responses; the success status is
 *   `plugins.patchwell.successStatus`, else the lowest 2xx of `response.status`, else 200.
 *   Every operation also references the shared error answers (`components.responses`, body
 *   `components.schemas.Error`): 400, 404, 429, 500; 401 and 403 when it needs credentials;
 *   413 and 415 when it takes a body.
 * - `auth` (or `plugins.patchwell.security`) → security: `auth: false` → `[]`; the default
 *   (`session` strategy) → session cookie or API token; the `job` strategy → jobToken.
 *
 * Shared schemas: a joi schema given `.id('Name')` becomes `components.schemas.Name` and every
 * use of it a `$ref` (so AuthContext, Ticket… appear once). Names match `^[A-Za-z0-9._-]+$`;
 * `Error` and `ValidationError` are taken by the envelope. Two different shapes under one name
 * throw when the document is built (descriptions and examples at the use site do not count).
 * `Shared.allow(null)` becomes `anyOf: [{$ref}, {type: 'null'}]`; nullable fields are type
 * arrays (`type: ['string', 'null']`), never `nullable: true`.
 *
 * The output is deterministic (paths, methods, components and tags sorted) and nothing is
 * cached here: `registerOpenApiRoutes` caches the document its caller builds.
 */
import { STATUS_CODES } from 'node:http';
import type { RequestRoute, Server } from '@hapi/hapi';
import type Joi from 'joi';
import { schemaOf } from './validators.js';
import { SchemaConverter, isJoi, type JoiDescription } from './openapi-schema.js';
import type { HttpMethod, JsonSchema, OpenApiDocument, OpenApiHeader, OpenApiOperation, OpenApiOptions, OpenApiRef, OpenApiRequestBody, OpenApiParameter, OpenApiPathItem, OpenApiResponse, SecurityName, SecurityRequirement } from './openapi-types.js';

export * from './openapi-types.js';
export { registerOpenApiRoutes } from './openapi-docs.js';

// ---------------------------------------------------------------------------------------------
// Error answers

const errorSchema: JsonSchema = {
  type: 'object',
  description: 'The body of every failure. `code` is stable snake_case; clients branch on it.',
  required: ['statusCode', 'error', 'message', 'code'],
  properties: {
    statusCode: { type: 'integer', description: 'HTTP status code', examples: [404] },
    error: { type: 'string', description: 'HTTP reason phrase', examples: ['Not Found'] },
    message: { type: 'string', description: 'Human-readable explanation' },
    code: { type: 'string', pattern: '^[a-z][a-z0-9_]*$', description: 'Stable machine-readable code', examples: ['not_found'] },
    details: { type: 'object', additionalProperties: true, description: 'Code-specific details' },
  },
  additionalProperties: false,
};

const validationErrorSchema: JsonSchema = {
  allOf: [
    { $ref: '#/components/schemas/Error' },
    {
      type: 'object',
      required: ['details'],
      properties: {
        code: { const: 'invalid_request' },
        details: {
          type: 'object',
          required: ['errors'],
          properties: {
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['path', 'message'],
                properties: {
                  path: { type: 'string', description: 'Dotted path of the field, prefixed by its source (payload, query, params, headers)', examples: ['payload.email'] },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  ],
};

interface StandardError {
  status: number;
  name: string;
  code: string;
  description: string;
  when: 'always' | 'authenticated' | 'body';
  schema?: string;
  headers?: Record<string, OpenApiHeader>;
}

const STANDARD_ERRORS: StandardError[] = [
  { status: 400, name: 'BadRequest', code: 'invalid_request', description: 'The request is invalid; details.errors lists each field', when: 'always', schema: 'ValidationError' },
  { status: 401, name: 'Unauthenticated', code: 'unauthenticated', description: 'Credentials are missing or invalid', when: 'authenticated' },
  { status: 403, name: 'Forbidden', code: 'forbidden', description: 'The caller may not do this', when: 'authenticated' },
  { status: 404, name: 'NotFound', code: 'not_found', description: 'No such resource (also for another organization\'s ids)', when: 'always' },
  { status: 413, name: 'PayloadTooLarge', code: 'payload_too_large', description: 'The request body is too large', when: 'body' },
  { status: 415, name: 'UnsupportedMediaType', code: 'unsupported_media_type', description: 'The request body has an unsupported Content-Type', when: 'body' },
  {
    status: 429, name: 'RateLimited', code: 'rate_limited', description: 'Too many requests', when: 'always',
    headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } } },
  },
  { status: 500, name: 'InternalError', code: 'internal_error', description: 'An unexpected error; it has been reported (details.request_id)', when: 'always' },
];

function errorResponse(e: StandardError): OpenApiResponse {
  const example = { statusCode: e.status, error: STATUS_CODES[e.status] ?? 'Error', message: e.description, code: e.code };
  const response: OpenApiResponse = {
    description: `${e.description} (code \`${e.code}\`)`,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${e.schema ?? 'Error'}` }, example } },
  };
  if (e.headers) response.headers = e.headers;
  return response;
}

const SECURITY_SCHEMES: Record<SecurityName, JsonSchema> = {
  session: { type: 'apiKey', in: 'cookie', name: 'pw_session', description: 'Dashboard session cookie (set by the sign-in operations)' },
  bearer: { type: 'http', scheme: 'bearer', description: 'API token (tokens section): `Authorization: Bearer <token>`' },
  jobToken: { type: 'http', scheme: 'bearer', description: 'Per-job token or agent token, scoped to one job (/v1/jobs/*)' },
  widgetKey: { type: 'apiKey', in: 'header', name: 'X-Widget-Key', description: 'Public widget key of a workspace (/v1/widget/*)' },
};

/** hapi auth strategy → the security schemes it accepts. */
const STRATEGY_SCHEMES: Record<string, SecurityName[]> = {
  session: ['session', 'bearer'],
  job: ['jobToken'],
  jobToken: ['jobToken'],
  bearer: ['bearer'],
  widgetKey: ['widgetKey'],
};

// ---------------------------------------------------------------------------------------------
// The document

const METHOD_ORDER: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

interface PatchwellRouteOptions {
  successStatus?: number;
  security?: string[];
  rawBody?: { contentType: string };
  produces?: string;
  roles?: string[];
  staff?: boolean;
}

export function buildOpenApiDocument(server: Server, opts: OpenApiOptions): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  const converter = new SchemaConverter();
  const paths: Record<string, OpenApiPathItem> = {};
  const tags = new Set<string>();

  const routes = server.table().filter((r) => typeof r.settings.id === 'string' && r.method !== '*');
  routes.sort((a, b) => compare(a.path, b.path) || METHOD_ORDER.indexOf(a.method as HttpMethod) - METHOD_ORDER.indexOf(b.method as HttpMethod));

  for (const route of routes) {
    for (const variant of pathVariants(route.path, route.settings.id as string)) {
      converter.where = `${route.method.toUpperCase()} ${route.path}`;
      const operation = buildOperation(route, variant, converter, schemas);
      for (const tag of operation.tags ?? []) tags.add(tag);
      (paths[variant.path] ??= {})[route.method as HttpMethod] = operation;
    }
  }

  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: opts.title, version: opts.version, ...(opts.description ? { description: opts.description } : {}) },
    ...(opts.serverUrl ? { servers: [{ url: opts.serverUrl.replace(/\/+$/, '') }] } : {}),
    tags: [...tags].sort(compare).map((name) => (opts.tagDescriptions?.[name] ? { name, description: opts.tagDescriptions[name] } : { name })),
    paths: sortKeys(paths),
    components: {
      schemas: sortKeys({ ...schemas, Error: errorSchema, ValidationError: validationErrorSchema }),
      responses: Object.fromEntries(STANDARD_ERRORS.map((e) => [e.name, errorResponse(e)])),
      securitySchemes: SECURITY_SCHEMES,
    },
  };
  return doc;
}

interface PathVariant {
  path: string;
  operationId: string;
  params: string[];
}

/**
 * hapi path → OpenAPI path(s). `{p*2}` → `{p}`; an optional `{p?}` or `{p*}` yields two
 * operations: with the parameter (operationId as given) and without it (`<id>Without<P>`),
 * since OpenAPI path parameters are always required.
 */
function pathVariants(path: string, id: string): PathVariant[] {
  const param = /\{(\w+)(\?|\*\d*)?\}/g;
  const params = [...path.matchAll(param)].map((m) => m[1]!);
  const full = path.replace(param, '{$1}');
  const optional = /\{(\w+)(?:\?|\*)\}/.exec(path);
  if (!optional) return [{ path: full, operationId: id, params }];
  const name = optional[1]!;
  const shortPath = path.replace(optional[0], '').replace(/\/+$/, '').replace(param, '{$1}') || '/';
  return [
    { path: full, operationId: id, params },
    { path: shortPath, operationId: `${id}Without${name[0]!.toUpperCase()}${name.slice(1)}`, params: params.filter((p) => p !== name) },
  ];
}

function buildOperation(route: RequestRoute, variant: PathVariant, converter: SchemaConverter, defs: Record<string, JsonSchema>): OpenApiOperation {
  const settings = route.settings;
  const pw = patchwellOptions(settings.plugins);
  const validate = asRecord(settings.validate) ?? {};
  const convert = (joi: Joi.Schema): JsonSchema => converter.parse(joi.describe() as JoiDescription, defs, 1);

  const routeTags = (Array.isArray(settings.tags) ? settings.tags : []).filter((t): t is string => typeof t === 'string' && t !== 'api');
  const description = [
    Array.isArray(settings.notes) ? settings.notes.join('\n\n') : settings.notes,
    pw.staff ? 'Staff only.' : undefined,
    pw.roles?.length ? `Roles: ${pw.roles.join(', ')}.` : undefined,
  ].filter((s): s is string => !!s);

  const parameters = [
    ...pathParameters(variant.params, isJoi(validate.params) ? convert(validate.params) : undefined, defs),
    ...objectParameters('query', isJoi(validate.query) ? convert(validate.query) : undefined, defs),
    ...objectParameters('header', isJoi(validate.headers) ? convert(validate.headers) : undefined, defs),
  ];

  let requestBody: OpenApiRequestBody | undefined;
  // A validator with a fast path (core/http/fast-path.ts) documents the joi schema behind it.
  const payload = isJoi(validate.payload) ? validate.payload : schemaOf(validate.payload);
  if (pw.rawBody || payload) {
    const contentType = pw.rawBody?.contentType ?? 'application/json';
    const schema = payload ? convert(payload) : { type: 'string', description: `The raw ${contentType} body` };
    const described = payload?.describe() as JoiDescription | undefined;
    const optional = described?.flags?.presence === 'optional' || !!described?.allow?.includes(null);
    requestBody = { required: !optional, content: { [contentType]: { schema } } };
  }

  const security = securityOf(route, pw);
  const responses = responsesOf(route, pw, convert, {
    authenticated: security.some((r) => Object.keys(r).length > 0),
    body: !!requestBody,
  });

  // Key order as a reader expects it.
  return {
    operationId: variant.operationId,
    ...(routeTags.length ? { tags: routeTags } : {}),
    ...(typeof settings.description === 'string' ? { summary: settings.description } : {}),
    ...(description.length ? { description: description.join('\n\n') } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
    security,
  };
}

function pathParameters(names: string[], schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): OpenApiParameter[] {
  const props = propertiesOf(schema, defs);
  return names.map((name) => parameter(name, 'path', props?.[name] ?? { type: 'string' }, true));
}

function objectParameters(where: 'query' | 'header', schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): OpenApiParameter[] {
  const props = propertiesOf(schema, defs);
  if (!props) return [];
  const required = new Set(Array.isArray(resolve(schema, defs)?.required) ? (resolve(schema, defs)!.required as string[]) : []);
  return Object.entries(props)
    .filter(([name]) => where !== 'header' || !IGNORED_HEADERS.has(name.toLowerCase()))
    .map(([name, s]) => parameter(name, where, s, required.has(name)));
}

function parameter(name: string, where: OpenApiParameter['in'], schema: JsonSchema, required: boolean): OpenApiParameter {
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

function propertiesOf(schema: JsonSchema | undefined, defs: Record<string, JsonSchema>): Record<string, JsonSchema> | undefined {
  return asRecord(resolve(schema, defs)?.properties) as Record<string, JsonSchema> | undefined;
}

function securityOf(route: RequestRoute, pw: PatchwellRouteOptions): SecurityRequirement[] {
  if (pw.security) {
    const unknown = pw.security.filter((s) => s !== 'none' && !(s in SECURITY_SCHEMES));
    if (unknown.length) throw new Error(`OpenAPI: unknown security ${unknown.join(', ')} on ${route.method.toUpperCase()} ${route.path}`);
    if (pw.security.every((s) => s === 'none')) return [];
    return pw.security.map((s) => (s === 'none' ? {} : { [s]: [] }));
  }
  const auth: unknown = route.settings.auth;
  if (auth === false) return [];
  const config = asRecord(auth);
  const strategies = Array.isArray(config?.strategies) ? config.strategies.filter((s): s is string => typeof s === 'string') : ['session'];
  const names = new Set(strategies.flatMap((s) => STRATEGY_SCHEMES[s] ?? STRATEGY_SCHEMES.session!));
  const requirements: SecurityRequirement[] = [...names].map((s) => ({ [s]: [] }));
  if (config?.mode === 'optional' || config?.mode === 'try') requirements.push({});
  return requirements;
}

function responsesOf(
  route: RequestRoute,
  pw: PatchwellRouteOptions,
  convert: (joi: Joi.Schema) => JsonSchema,
  has: { authenticated: boolean; body: boolean },
): Record<string, OpenApiResponse | OpenApiRef> {
  const response = asRecord(route.settings.response) ?? {};
  const byStatus = asRecord(response.status) ?? {};
  const codes = Object.keys(byStatus).map(Number).filter(Number.isInteger);
  const success = pw.successStatus ?? codes.filter((c) => c >= 200 && c < 300).sort((a, b) => a - b)[0] ?? 200;

  const declared = new Map<number, unknown>(codes.map((c) => [c, byStatus[String(c)]]));
  if (!declared.has(success)) declared.set(success, response.schema);

  const out: Record<string, OpenApiResponse | OpenApiRef> = {};
  for (const [status, joi] of [...declared].sort(([a], [b]) => a - b)) {
    const r: OpenApiResponse = { description: STATUS_CODES[status] ?? `Status ${status}` };
    if (status === 303 || status === 302 || status === 301 || status === 307 || status === 308) {
      r.headers = { Location: { description: 'Where to go next', schema: { type: 'string', format: 'uri-reference' } } };
    } else if (status !== 204 && status !== 304) {
      const isSuccess = status === success;
      const type = isSuccess && pw.produces ? pw.produces : 'application/json';
      // A validator function with a joi schema behind it (core/http/json-text.ts) documents that schema.
      const documented = isJoi(joi) ? joi : schemaOf(joi);
      const schema = documented ? convert(documented) : type === 'application/json' ? { type: 'object' } : { type: 'string' };
      r.content = { [type]: { schema } };
    }
    out[String(status)] = r;
  }
  for (const e of STANDARD_ERRORS) {
    if (out[String(e.status)]) continue;
    if (e.when === 'authenticated' && !has.authenticated) continue;
    if (e.when === 'body' && !has.body) continue;
    out[String(e.status)] = { $ref: `#/components/responses/${e.name}` };
  }
  return sortKeys(out);
}

function patchwellOptions(plugins: unknown): PatchwellRouteOptions {
  const pw = asRecord(asRecord(plugins)?.patchwell);
  if (!pw) return {};
  const strings = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined);
  const raw = asRecord(pw.rawBody);
  const out: PatchwellRouteOptions = {};
  if (typeof pw.successStatus === 'number') out.successStatus = pw.successStatus;
  if (strings(pw.security)) out.security = strings(pw.security);
  if (raw && typeof raw.contentType === 'string') out.rawBody = { contentType: raw.contentType };
  if (typeof pw.produces === 'string') out.produces = pw.produces;
  if (strings(pw.roles)) out.roles = strings(pw.roles);
  if (pw.staff === true) out.staff = true;
  return out;
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}
