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
 *   `plugins.patchwell.successStatus`, else the lowest 2xx of `response.status`, else 200. A GET
 *   that redirects also lists 200 with no fields, as the spec describes those answers.
 * - error answers: one response per status the operation can answer, with its codes
 *   (openapi-errors.ts: the core's rules, the codes derived from the route's code, the route's
 *   `plugins.patchwell.errors`); a status whose only code is the standard one references the
 *   shared answer (`components.responses`), the others carry `code` as an enum.
 * - `auth` (or `plugins.patchwell.security`) → security: `auth: false` → `[]`; the default
 *   (`session` strategy) → session cookie or API token; the `job` strategy → jobToken.
 * - `plugins.patchwell.extension: 'why'` → `x-extension: true` (an operation beyond the spec).
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
import { DERIVED_ROUTE_ERRORS, routeErrorContract, type ErrorContract } from './openapi-errors.js';
import {
  SECURITY_SCHEMES,
  asRecord,
  patchwellOptions,
  securityOf,
  type PatchwellRouteOptions,
} from './openapi-route.js';
import { SECTION_DESCRIPTIONS } from './openapi-tags.js';
import type {
  HttpMethod,
  JsonSchema,
  OpenApiDocument,
  OpenApiHeader,
  OpenApiOperation,
  OpenApiOptions,
  OpenApiRef,
  OpenApiRequestBody,
  OpenApiParameter,
  OpenApiPathItem,
  OpenApiResponse,
  SecurityName,
  SecurityRequirement,
} from './openapi-types.js';

export * from './openapi-types.js';
export { registerOpenApiRoutes } from './openapi-docs.js';
export {
  routeErrorContract,
  registerErrorContractCheck,
  DERIVED_ROUTE_ERRORS,
  type DerivedRouteErrors,
  type ErrorContract,
  type RouteError,
} from './openapi-errors.js';

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
    code: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_]*$',
      description: 'Stable machine-readable code',
      examples: ['not_found'],
    },
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
                  path: {
                    type: 'string',
                    description: 'Dotted path of the field, prefixed by its source (payload, query, params, headers)',
                    examples: ['payload.email'],
                  },
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
  schema?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, OpenApiHeader>;
}

const RETRY_AFTER: Record<string, OpenApiHeader> = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
};

/** The answers whose only code is the standard one: defined once, referenced by every operation. */
const STANDARD_ERRORS: StandardError[] = [
  {
    status: 400,
    name: 'BadRequest',
    code: 'invalid_request',
    description: 'The request is invalid; details.errors lists each field',
    schema: 'ValidationError',
    details: { errors: [{ path: 'payload.email', message: '"email" must be a valid email' }] },
  },
  { status: 401, name: 'Unauthenticated', code: 'unauthenticated', description: 'Credentials are missing or invalid' },
  { status: 403, name: 'Forbidden', code: 'forbidden', description: 'The caller may not do this' },
  {
    status: 404,
    name: 'NotFound',
    code: 'not_found',
    description: "No such resource (also for another organization's ids)",
  },
  { status: 413, name: 'PayloadTooLarge', code: 'payload_too_large', description: 'The request body is too large' },
  {
    status: 415,
    name: 'UnsupportedMediaType',
    code: 'unsupported_media_type',
    description: 'The request body has an unsupported Content-Type',
  },
  { status: 429, name: 'RateLimited', code: 'rate_limited', description: 'Too many requests', headers: RETRY_AFTER },
  {
    status: 500,
    name: 'InternalError',
    code: 'internal_error',
    description: 'An unexpected error; it has been reported (details.request_id)',
    details: { request_id: '1700000000000:host:1234:abcd:10000' },
  },
];

function errorResponse(e: StandardError): OpenApiResponse {
  const example = {
    statusCode: e.status,
    error: STATUS_CODES[e.status] ?? 'Error',
    message: e.description,
    code: e.code,
    ...(e.details ? { details: e.details } : {}),
  };
  const response: OpenApiResponse = {
    description: `${e.description} (code \`${e.code}\`)`,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${e.schema ?? 'Error'}` }, example } },
  };
  if (e.headers) response.headers = e.headers;
  return response;
}

/** The answers of one operation at one status: the shared one, or its codes as an enum. */
function errorAnswer(status: number, codes: string[]): OpenApiResponse | OpenApiRef {
  const standard = STANDARD_ERRORS.find((e) => e.status === status);
  if (standard && codes.length === 1 && codes[0] === standard.code)
    return { $ref: `#/components/responses/${standard.name}` };
  const reason = STATUS_CODES[status] ?? `Status ${status}`;
  const others = codes.filter((c) => !(status === 400 && c === 'invalid_request'));
  const coded: JsonSchema = {
    allOf: [
      { $ref: '#/components/schemas/Error' },
      { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: others } } },
    ],
  };
  // 400 invalid_request keeps its field list (ValidationError) beside the operation's other 400 codes.
  const schema =
    others.length === codes.length ? coded : { anyOf: [{ $ref: '#/components/schemas/ValidationError' }, coded] };
  const list = codes.map((c) => `\`${c}\``).join(', ');
  const response: OpenApiResponse = {
    description: `${reason}: ${list}`,
    content: {
      'application/json': {
        schema,
        example: { statusCode: status, error: reason, message: `${reason} (${others[0]})`, code: others[0] },
      },
    },
  };
  if (status === 429) response.headers = RETRY_AFTER;
  return response;
}

// ---------------------------------------------------------------------------------------------
// The document

const METHOD_ORDER: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

export function buildOpenApiDocument(server: Server, opts: OpenApiOptions): OpenApiDocument {
  const schemas: Record<string, JsonSchema> = {};
  const converter = new SchemaConverter();
  const paths: Record<string, OpenApiPathItem> = {};
  const tags = new Set<string>();

  const routes = server.table().filter((r) => typeof r.settings.id === 'string' && r.method !== '*');
  routes.sort(
    (a, b) =>
      compare(a.path, b.path) ||
      METHOD_ORDER.indexOf(a.method as HttpMethod) - METHOD_ORDER.indexOf(b.method as HttpMethod),
  );

  const derived = opts.routeErrors ?? DERIVED_ROUTE_ERRORS;
  for (const route of routes) {
    const errors = routeErrorContract(route, derived);
    for (const variant of pathVariants(route.path, route.settings.id as string)) {
      converter.where = `${route.method.toUpperCase()} ${route.path}`;
      const operation = buildOperation(route, variant, converter, schemas, errors);
      for (const tag of operation.tags ?? []) tags.add(tag);
      (paths[variant.path] ??= {})[route.method as HttpMethod] = operation;
    }
  }

  // Only what some operation uses: a scheme or a shared answer nobody references is noise.
  const operations = Object.values(paths).flatMap((item) => Object.values(item));
  const schemes = new Set(operations.flatMap((o) => o.security.flatMap((r) => Object.keys(r))));
  const used = new Set(operations.flatMap((o) => Object.values(o.responses).map((r) => ('$ref' in r ? r.$ref : ''))));
  const tagDescriptions = { ...SECTION_DESCRIPTIONS, ...opts.tagDescriptions };
  const doc: OpenApiDocument = {
    openapi: '3.1.0',
    info: { title: opts.title, version: opts.version, ...(opts.description ? { description: opts.description } : {}) },
    ...(opts.serverUrl
      ? { servers: [{ url: opts.serverUrl.replace(/\/+$/, ''), description: 'This service (PUBLIC_BASE_URL)' }] }
      : {}),
    tags: [...tags]
      .sort(compare)
      .map((name) => (tagDescriptions[name] ? { name, description: tagDescriptions[name] } : { name })),
    paths: sortKeys(paths),
    components: {
      schemas: sortKeys({ ...schemas, Error: errorSchema, ValidationError: validationErrorSchema }),
      responses: Object.fromEntries(
        STANDARD_ERRORS.filter((e) => used.has(`#/components/responses/${e.name}`)).map((e) => [
          e.name,
          errorResponse(e),
        ]),
      ),
      securitySchemes: Object.fromEntries(
        Object.entries(SECURITY_SCHEMES).filter(([name]) => schemes.has(name)),
      ) as Partial<Record<SecurityName, JsonSchema>>,
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
    {
      path: shortPath,
      operationId: `${id}Without${name[0]!.toUpperCase()}${name.slice(1)}`,
      params: params.filter((p) => p !== name),
    },
  ];
}

function buildOperation(
  route: RequestRoute,
  variant: PathVariant,
  converter: SchemaConverter,
  defs: Record<string, JsonSchema>,
  errors: ErrorContract,
): OpenApiOperation {
  const settings = route.settings;
  const pw = patchwellOptions(settings.plugins);
  const validate = asRecord(settings.validate) ?? {};
  const convert = (joi: Joi.Schema): JsonSchema => converter.parse(joi.describe() as JoiDescription, defs, 1);
  const security = securityOf(route, pw);

  const routeTags = (Array.isArray(settings.tags) ? settings.tags : []).filter(
    (t): t is string => typeof t === 'string' && t !== 'api',
  );
  const description = [
    Array.isArray(settings.notes) ? settings.notes.join('\n\n') : settings.notes,
    pw.extension ? `Extension (not in the spec): ${pw.extension}` : undefined,
    accessLine(security, pw),
  ].filter((s): s is string => !!s);

  const parameters = [
    ...pathParameters(variant.params, isJoi(validate.params) ? convert(validate.params) : undefined, defs),
    ...objectParameters('query', isJoi(validate.query) ? convert(validate.query) : undefined, defs),
    ...objectParameters('header', isJoi(validate.headers) ? convert(validate.headers) : undefined, defs),
  ];

  let requestBody: OpenApiRequestBody | undefined;
  // A validator with a compiled check (core/http/compiled-validator.ts) documents the joi schema behind it.
  const payload = isJoi(validate.payload) ? validate.payload : schemaOf(validate.payload);
  if (pw.rawBody || payload) {
    const contentType = pw.rawBody?.contentType ?? 'application/json';
    const schema = payload ? convert(payload) : { type: 'string', description: `The raw ${contentType} body` };
    const described = payload?.describe() as JoiDescription | undefined;
    const optional = described?.flags?.presence === 'optional' || !!described?.allow?.includes(null);
    requestBody = { required: !optional, content: { [contentType]: { schema } } };
  }

  const responses = responsesOf(route, pw, convert, errors);

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
    ...(pw.extension ? { 'x-extension': true as const } : {}),
  };
}

const SCHEME_WORDS: Record<string, string> = {
  session: 'a dashboard session',
  bearer: 'an API token',
  jobToken: "the job's job token or agent token",
  widgetKey: 'a widget key',
};

/** Who may call, in words: the security requirements, then roles and staff. */
function accessLine(security: SecurityRequirement[], pw: PatchwellRouteOptions): string {
  const schemes = security.flatMap((r) => Object.keys(r)).map((name) => SCHEME_WORDS[name] ?? name);
  const anonymous = security.some((r) => Object.keys(r).length === 0);
  const who = !schemes.length
    ? 'Access: public, no credentials.'
    : anonymous
      ? `Access: public; with ${schemes.join(' or ')} the caller is known.`
      : `Access: ${schemes.join(' or ')}.`;
  return [who, pw.staff ? 'Staff only.' : undefined, pw.roles?.length ? `Roles: ${pw.roles.join(', ')}.` : undefined]
    .filter(Boolean)
    .join(' ');
}

function pathParameters(
  names: string[],
  schema: JsonSchema | undefined,
  defs: Record<string, JsonSchema>,
): OpenApiParameter[] {
  const props = propertiesOf(schema, defs);
  return names.map((name) => parameter(name, 'path', props?.[name] ?? { type: 'string' }, true));
}

function objectParameters(
  where: 'query' | 'header',
  schema: JsonSchema | undefined,
  defs: Record<string, JsonSchema>,
): OpenApiParameter[] {
  const props = propertiesOf(schema, defs);
  if (!props) return [];
  const required = new Set(
    Array.isArray(resolve(schema, defs)?.required) ? (resolve(schema, defs)!.required as string[]) : [],
  );
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

function responsesOf(
  route: RequestRoute,
  pw: PatchwellRouteOptions,
  convert: (joi: Joi.Schema) => JsonSchema,
  errors: ErrorContract,
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
    if (REDIRECTS.has(status)) {
      r.headers = {
        Location: { description: 'Where to go next', schema: { type: 'string', format: 'uri-reference' } },
      };
    } else if (status !== 204 && status !== 304) {
      const isSuccess = status === success;
      const type = isSuccess && pw.produces ? pw.produces : 'application/json';
      // A validator function with a joi schema behind it (core/http/json-text.ts) documents that schema.
      const documented = isJoi(joi) ? joi : schemaOf(joi);
      const schema = documented
        ? convert(documented)
        : type === 'application/json'
          ? { type: 'object' }
          : { type: 'string' };
      r.content = { [type]: { schema } };
    }
    out[String(status)] = r;
  }
  // The spec describes a browser step that redirects as "200 no fields"; the service answers the
  // redirect itself, and a client that follows it gets the page it names.
  if (route.method === 'get' && REDIRECTS.has(success) && !out['200']) {
    out['200'] = {
      description:
        `No fields, as the spec gives this answer: the service redirects (${success}, Location) ` +
        'and a client that follows the redirect lands on that page',
    };
  }
  for (const [status, list] of errors) {
    if (!out[String(status)]) out[String(status)] = errorAnswer(status, list);
  }
  return sortKeys(out);
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => compare(a, b)));
}
