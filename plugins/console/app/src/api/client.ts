import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from './schema';
import { ApiError, type ErrorBody } from './errors';

/**
 * The one client of the REST API. Every call of the console goes through it, typed by the
 * service's own OpenAPI document (src/api/schema.d.ts, `npm run api:generate`).
 * A non-2xx answer throws an ApiError; a 401 outside the public pages sends the person to
 * sign-in with the way back (see `onUnauthenticated`).
 */
export const api = createClient<paths>({ baseUrl: window.location.origin, credentials: 'include' });

type UnauthenticatedHandler = (error: ApiError) => void;
let unauthenticated: UnauthenticatedHandler = () => {};

/** Set by the router: what a 401 does (sign-in with `redirect_to` unless already on a public page). */
export function onUnauthenticated(handler: UnauthenticatedHandler): void {
  unauthenticated = handler;
}

const errors: Middleware = {
  async onResponse({ response }) {
    if (response.ok) return undefined;
    let body: Partial<ErrorBody> | null;
    try {
      body = (await response.clone().json()) as Partial<ErrorBody>;
    } catch {
      body = null;
    }
    const retry = Number(response.headers.get('retry-after'));
    const error = new ApiError(response.status, body, Number.isFinite(retry) && retry > 0 ? retry : null);
    if (response.status === 401) unauthenticated(error);
    throw error;
  },
  onError({ error }) {
    // fetch itself failed (offline, server down): still an ApiError, so pages show one kind of error.
    return error instanceof ApiError
      ? error
      : new ApiError(0, { message: error instanceof Error ? error.message : String(error) });
  },
};
api.use(errors);

/**
 * The data of a call that succeeded (the middleware has thrown otherwise).
 * `const me = await data(api.GET('/v1/auth/me'))`.
 */
export async function data<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const res = await call;
  return res.data as T;
}

type GetPaths = { [P in keyof paths]: paths[P] extends { get: object } ? P : never }[keyof paths];

/**
 * The address of a GET operation the browser navigates to (redirects such as the code-host
 * sign-in start), typed by the document: `href('/v1/auth/codehost/start', { redirect_to: '/' })`.
 */
export function href<P extends GetPaths>(path: P, query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) q.set(k, v);
  const s = q.toString();
  return `${path}${s ? `?${s}` : ''}`;
}
