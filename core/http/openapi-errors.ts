/**
 * The error answers of each operation ("errors are in the contract", docs/openapi.md): what the
 * OpenAPI document lists, and what tests enforce. Three sources, united:
 *
 * - the core, from the route's settings: 400 invalid_request always (validation, and the input
 *   guard on every path, query and header value), 401 unauthenticated when it requires
 *   credentials, 403 forbidden when it is role- or staff-gated or takes an unsafe method (the
 *   Origin check of core/http/auth.ts), 404 not_found when its path has parameters, 413/415 when
 *   it takes a body, 500 internal_error always;
 * - its code: core/http/route-errors.generated.json (`npm run openapi:errors`, bin/route-errors.ts),
 *   every error factory reachable from the handler, plus what the resolvers of its auth
 *   strategy throw;
 * - the route itself: `plugins.patchwell.errors: [{ status, code }]`, for what the walk cannot see.
 */
import { appendFileSync } from 'node:fs';
import Boom from '@hapi/boom';
import type { Request, RequestRoute, ResponseToolkit, Server } from '@hapi/hapi';
import generated from './route-errors.generated.json' with { type: 'json' };
import type { ErrorBody } from './errors.js';
import { authConfig, patchwellOptions, takesBody, type PatchwellRouteOptions } from './openapi-route.js';

export interface RouteError {
  status: number;
  code: string;
}

/** The generated file's shape (bin/route-errors.ts writes it). */
export interface DerivedRouteErrors {
  operations: Record<string, RouteError[]>;
  strategies: Record<string, RouteError[]>;
}

export const DERIVED_ROUTE_ERRORS: DerivedRouteErrors = generated;

/** status → its codes, sorted by status then code. */
export type ErrorContract = Map<number, string[]>;

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/** Every error status and code the operation of `route` can answer. */
export function routeErrorContract(
  route: RequestRoute,
  derived: DerivedRouteErrors = DERIVED_ROUTE_ERRORS,
  pw: PatchwellRouteOptions = patchwellOptions(route.settings.plugins),
): ErrorContract {
  const byStatus = new Map<number, Set<string>>();
  const add = (status: number, code: string) => byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));

  const body = takesBody(route, pw);
  const auth = authConfig(route);
  // hapi's validation, and the core's check of every path, query and header value for text the
  // database cannot store (core/http/input-guard.ts): any operation can answer 400.
  add(400, 'invalid_request');
  // Credentials a route requires itself (hapi auth, or a scheme it declares and checks).
  const declaredScheme = !!pw.security?.length && !pw.security.includes('none');
  if ((auth && auth.mode === 'required' && !pw.security) || declaredScheme) add(401, 'unauthenticated');
  if (auth && auth.mode === 'required' && !pw.security) {
    for (const strategy of auth.strategies) for (const e of derived.strategies[strategy] ?? []) add(e.status, e.code);
  }
  if (pw.roles?.length || pw.staff || UNSAFE.has(route.method)) add(403, 'forbidden');
  if (/\{[^}]+\}/.test(route.path)) add(404, 'not_found');
  if (body) {
    add(413, 'payload_too_large');
    add(415, 'unsupported_media_type');
  }
  add(500, 'internal_error');

  const id = route.settings.id;
  for (const e of (typeof id === 'string' ? derived.operations[id] : undefined) ?? []) add(e.status, e.code);
  for (const e of pw.errors ?? []) add(e.status, e.code);

  return new Map([...byStatus].sort(([a], [b]) => a - b).map(([status, codes]) => [status, [...codes].sort()]));
}

/**
 * In tests, an error code a route's OpenAPI entry does not declare is logged (tag `openapi`); with
 * `strict` (PATCHWELL_STRICT_ERRORS=1) it answers 500 `undeclared_error` so the test that caused it fails.
 * Strict is off by default until a full suite run has shown the generator misses nothing (docs/openapi.md);
 * PATCHWELL_UNDECLARED_ERRORS_FILE collects what a run found, a JSON line per answer.
 */
export function registerErrorContractCheck(
  server: Server,
  derived: DerivedRouteErrors = DERIVED_ROUTE_ERRORS,
  strict = process.env.PATCHWELL_STRICT_ERRORS === '1',
): void {
  const contracts = new WeakMap<RequestRoute['settings'], ErrorContract>();
  server.ext('onPreResponse', (request: Request, h: ResponseToolkit) => {
    const res = request.response;
    if (!Boom.isBoom(res)) return h.continue;
    const id = request.route.settings.id;
    // An operation the generator has not seen yet (a route added since): the file's own test says so.
    if (typeof id !== 'string' || !derived.operations[id]) return h.continue;
    const code = (res.data as { code?: unknown } | null)?.code;
    if (typeof code !== 'string') return h.continue;
    const status = res.output.statusCode;
    if (status === 500) return h.continue;
    let contract = contracts.get(request.route.settings);
    if (!contract) {
      contract = routeErrorContract(request.route, derived);
      contracts.set(request.route.settings, contract);
    }
    if (contract.get(status)?.includes(code)) return h.continue;
    const message =
      `${request.method.toUpperCase()} ${request.route.path} (${id}) answered ${status} ${code}, which its OpenAPI entry does not declare: ` +
      'run `npm run openapi:errors`, or declare it in plugins.patchwell.errors';
    request.log(['error', 'openapi'], message);
    const file = process.env.PATCHWELL_UNDECLARED_ERRORS_FILE;
    if (file)
      appendFileSync(
        file,
        `${JSON.stringify({ operation: id, method: request.method, path: request.route.path, status, code })}\n`,
      );
    if (!strict) return h.continue;
    // A plain answer, not a thrown error: the envelope would hide a 500's message.
    const details = { operation: id, status, code, answer: res.message };
    const body: ErrorBody = {
      statusCode: 500,
      error: 'Internal Server Error',
      message,
      code: 'undeclared_error',
      details,
    };
    return h.response(body).code(500).takeover();
  });
}
