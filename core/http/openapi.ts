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
import {
  STANDARD_ERRORS,
  errorAnswer,
  errorResponse,
  errorSchema,
  validationErrorSchema,
} from './openapi-error-answers.js';
import { objectParameters, pathParameters } from './openapi-parameters.js';
import { SECTION_DESCRIPTIONS } from './openapi-tags.js';
import type {
  HttpMethod,
  JsonSchema,
  OpenApiDocument,
  OpenApiOperation,
  OpenApiOptions,
  OpenApiRef,
  OpenApiRequestBody,
  OpenApiPathItem,
  OpenApiResponse,
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
// The document

const METHOD_ORDER: HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

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
      securitySchemes: Object.fromEntries(Object.entries(SECURITY_SCHEMES).filter(([name]) => schemes.has(name))),
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
  const params = [...path.matchAll(param)].map((m) => m[1]);
  const full = path.replace(param, '{$1}');
  const optional = /\{(\w+)(?:\?|\*)\}/.exec(path);
  if (!optional) return [{ path: full, operationId: id, params }];
  const name = optional[1];
  const shortPath = path.replace(optional[0], '').replace(/\/+$/, '').replace(param, '{$1}') || '/';
  return [
    { path: full, operationId: id, params },
    {
      path: shortPath,
      operationId: `${id}Without${name[0].toUpperCase()}${name.slice(1)}`,
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
  const convert = (joi: Joi.Schema): JsonSchema => converter.parse(joi.describe(), defs, 1);
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
    const described: JoiDescription | undefined = payload?.describe();
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
