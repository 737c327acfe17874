/** What the OpenAPI document (openapi.ts) and the error contract (openapi-errors.ts) read from one route. */
import type { RequestRoute } from '@hapi/hapi';
import { schemaOf } from './validators.js';
import { isJoi } from './openapi-schema.js';
import type { JsonSchema, SecurityName, SecurityRequirement } from './openapi-types.js';

/** A route's `plugins.patchwell`, as far as the document is concerned (docs/openapi.md). */
export interface PatchwellRouteOptions {
  successStatus?: number;
  security?: string[];
  rawBody?: { contentType: string };
  produces?: string;
  roles?: string[];
  staff?: boolean;
  /** Why an operation that is not in the spec exists: the document marks it `x-extension: true`. */
  extension?: string;
  /** Error answers the route declares itself, beside those derived from its code. */
  errors?: { status: number; code: string }[];
  /** The route stores its payload's text cleaned (no NUL, no lone surrogate) instead of refusing it (core/http/input-guard.ts). */
  cleansText?: boolean;
}

// A route's `options.plugins.patchwell` is typed for hapi: auth.ts and input-guard.ts read it as it is.
declare module '@hapi/hapi' {
  interface PluginSpecificConfiguration {
    patchwell?: PatchwellRouteOptions;
  }
}

export const SECURITY_SCHEMES: Record<SecurityName, JsonSchema> = {
  session: {
    type: 'apiKey',
    in: 'cookie',
    name: 'pw_session',
    description: 'Dashboard session cookie (set by the sign-in operations)',
  },
  bearer: {
    type: 'http',
    scheme: 'bearer',
    description: 'API token (tokens section): `Authorization: Bearer <token>`',
  },
  jobToken: {
    type: 'http',
    scheme: 'bearer',
    description: 'Per-job token or agent token, scoped to one job (/v1/jobs/*)',
  },
  widgetKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Widget-Key',
    description: 'Public widget key of a workspace (/v1/widget/*)',
  },
};

/** hapi auth strategy → the security schemes it accepts. */
const STRATEGY_SCHEMES: Record<string, SecurityName[]> = {
  session: ['session', 'bearer'],
  job: ['jobToken'],
  jobToken: ['jobToken'],
  bearer: ['bearer'],
  widgetKey: ['widgetKey'],
};

export function patchwellOptions(plugins: unknown): PatchwellRouteOptions {
  const pw = asRecord(asRecord(plugins)?.patchwell);
  if (!pw) return {};
  const strings = (v: unknown): string[] | undefined =>
    Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : undefined;
  const raw = asRecord(pw.rawBody);
  const out: PatchwellRouteOptions = {};
  if (typeof pw.successStatus === 'number') out.successStatus = pw.successStatus;
  if (strings(pw.security)) out.security = strings(pw.security);
  if (raw && typeof raw.contentType === 'string') out.rawBody = { contentType: raw.contentType };
  if (typeof pw.produces === 'string') out.produces = pw.produces;
  if (strings(pw.roles)) out.roles = strings(pw.roles);
  if (pw.staff === true) out.staff = true;
  if (typeof pw.extension === 'string' && pw.extension.trim()) out.extension = pw.extension.trim();
  if (Array.isArray(pw.errors)) {
    out.errors = pw.errors
      .map((e) => asRecord(e))
      .filter((e): e is Record<string, unknown> => !!e && Number.isInteger(e.status) && typeof e.code === 'string')
      .map((e) => ({ status: e.status as number, code: e.code as string }));
  }
  return out;
}

/** `auth` (or `plugins.patchwell.security`) → the operation's security requirements. */
export function securityOf(route: RequestRoute, pw: PatchwellRouteOptions): SecurityRequirement[] {
  if (pw.security) {
    const unknown = pw.security.filter((s) => s !== 'none' && !(s in SECURITY_SCHEMES));
    if (unknown.length)
      throw new Error(`OpenAPI: unknown security ${unknown.join(', ')} on ${route.method.toUpperCase()} ${route.path}`);
    if (pw.security.every((s) => s === 'none')) return [];
    return pw.security.map((s) => (s === 'none' ? {} : { [s]: [] }));
  }
  const auth = authConfig(route);
  if (!auth) return [];
  const names = new Set(auth.strategies.flatMap((s) => STRATEGY_SCHEMES[s] ?? STRATEGY_SCHEMES.session));
  const requirements: SecurityRequirement[] = [...names].map((s) => ({ [s]: [] }));
  if (auth.mode !== 'required') requirements.push({});
  return requirements;
}

/** The hapi auth of a route: its strategies and mode, or null when it is public (`auth: false`). */
export function authConfig(route: RequestRoute): { strategies: string[]; mode: string } | null {
  const auth: unknown = route.settings.auth;
  if (auth === false) return null;
  const config = asRecord(auth);
  const strategies = Array.isArray(config?.strategies)
    ? config.strategies.filter((s): s is string => typeof s === 'string')
    : ['session'];
  const mode = typeof config?.mode === 'string' ? config.mode : 'required';
  return { strategies, mode };
}

/** Whether the route documents a request body (a payload schema or a raw body). */
export function takesBody(route: RequestRoute, pw: PatchwellRouteOptions): boolean {
  const payload = asRecord(route.settings.validate)?.payload;
  return !!pw.rawBody || isJoi(payload) || !!schemaOf(payload);
}

export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}
