import type { Request, Server, ResponseToolkit } from '@hapi/hapi';
import { forbidden, unauthenticated } from './errors.js';
import { registerActor, type TrustProxy } from './actor.js';

export type Role = 'owner' | 'admin' | 'reviewer' | 'client_viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'reviewer', 'client_viewer'];

/** Who is calling. Built by an AuthResolver; lives in the request scope as `principal`. */
export interface Principal {
  kind: 'session' | 'token' | 'job';
  userId: string | null;
  orgId: string;
  role: Role;
  staff: boolean;
  email: string | null;
  locale: string;
  /** Workspaces the caller may open; null means every workspace of the organization. */
  workspaceIds: string[] | null;
  sessionId?: string;
  tokenId?: string;
  jobId?: string;
  /** Whether the session came from single sign-on. */
  sso?: boolean;
}

/**
 * Turns a request into a Principal, or null when its credential kind is absent. Throws (401) when
 * a credential of its kind is present but invalid. Plugins (accounts, fixes) register resolvers in
 * the container list `authResolvers`.
 */
export interface AuthResolver {
  /** `session` covers dashboard cookies and API tokens; `job` the per-job tokens. */
  strategy: 'session' | 'job';
  name: string;
  authenticate(request: Request): Promise<Principal | null>;
}

export const SESSION_COOKIE = 'pw_session';

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

/**
 * Auth plumbing: a `patchwell` scheme with strategies `session` (default for every route) and
 * `job`, the Origin check for cookie-authenticated unsafe requests, and role checks from
 * `options.plugins.patchwell.roles` / `staff`.
 */
export function registerAuth(
  server: Server,
  opts: { resolvers: () => AuthResolver[]; allowedOrigins: string[]; trustProxy: TrustProxy },
): void {
  registerActor(server, opts.trustProxy);
  const allowed = new Set(opts.allowedOrigins.map((o) => new URL(o).origin));

  server.auth.scheme('patchwell', (_server, options) => {
    const strategy = (options as { strategy: 'session' | 'job' }).strategy;
    return {
      authenticate: async (request: Request, h: ResponseToolkit) => {
        for (const resolver of opts.resolvers()) {
          if (resolver.strategy !== strategy) continue;
          const principal = await resolver.authenticate(request);
          if (principal) return h.authenticated({ credentials: { principal } as never });
        }
        throw unauthenticated(strategy === 'job' ? 'A valid job token is required' : 'Sign in first');
      },
    };
  });
  server.auth.strategy('session', 'patchwell', { strategy: 'session' });
  server.auth.strategy('job', 'patchwell', { strategy: 'job' });
  server.auth.default('session');

  // CSRF: a browser request carrying our cookie from a foreign Origin never reaches a handler.
  server.ext('onPreAuth', (request, h) => {
    if (!UNSAFE.has(request.method)) return h.continue;
    if (!(request.state as Record<string, unknown> | undefined)?.[SESSION_COOKIE]) return h.continue;
    const origin = request.headers.origin as string | undefined;
    if (!origin) return h.continue;
    if (origin === 'null' || !allowed.has(safeOrigin(origin))) throw forbidden('Origin not allowed for this request');
    return h.continue;
  });

  server.ext('onPostAuth', (request, h) => {
    const rule = routeRule(request);
    if (!rule) return h.continue;
    const principal = principalOf(request);
    if (!principal) return h.continue; // auth: false routes declare no roles
    authorize(principal, rule);
    return h.continue;
  });
}

function safeOrigin(origin: string): string {
  try {
    return new URL(origin).origin;
  } catch {
    return 'invalid';
  }
}

interface RouteRule {
  roles?: Role[];
  staff?: boolean;
}

function routeRule(request: Request): RouteRule | null {
  const p = request.route.settings.plugins?.patchwell;
  // plugins.patchwell is typed in openapi-route.ts (PatchwellRouteOptions), whose roles are strings naming Roles.
  return p && (p.roles || p.staff) ? (p as RouteRule) : null;
}

/** The authenticated caller of a request, or null on public routes. */
export function principalOf(request: Request): Principal | null {
  const creds = request.auth?.credentials as { principal?: Principal } | null | undefined;
  return creds?.principal ?? null;
}

/** The caller, or 401 when the route let an anonymous request through. */
export function requirePrincipal(request: Request): Principal {
  const p = principalOf(request);
  if (!p) throw unauthenticated();
  return p;
}

/**
 * The one policy check every plugin uses: role membership, staff-only, and workspace access.
 * Throws 403 forbidden.
 */
export function authorize(
  principal: Principal,
  rule: { roles?: readonly Role[]; staff?: boolean; workspaceId?: string | null },
): void {
  if (rule.staff && !principal.staff) throw forbidden('Staff only');
  if (rule.roles && !rule.roles.includes(principal.role))
    throw forbidden(`This needs one of the roles: ${rule.roles.join(', ')}`);
  if (rule.workspaceId && !canOpenWorkspace(principal, rule.workspaceId))
    throw forbidden('You cannot open this workspace');
}

export function canOpenWorkspace(principal: Principal, workspaceId: string): boolean {
  return principal.workspaceIds === null || principal.workspaceIds.includes(workspaceId);
}
