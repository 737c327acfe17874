import type { App } from '../../core/kernel/app.js';
import type { Answer, Method } from './api-types.js';

/** An answer of `call`: the status, the JSON body (`{ raw }` when the payload is not JSON), headers, payload. */
export interface Call<B = Record<string, unknown>> {
  status: number;
  body: B;
  headers: Record<string, unknown>;
  payload: string;
  raw: Buffer;
}

/** Whoever calls: a signed-up member, an API key holder… (anything with headers to send). */
export interface Caller {
  auth: { headers: Record<string, string> };
}

/** A request through `server.inject` as `who` (null: anonymous), with extra headers. */
export async function call<M extends Method, U extends string>(
  app: App,
  who: Caller | null,
  method: M,
  url: U,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<Call<Answer<M, U>>> {
  const res = await app.server.inject({
    method,
    url,
    payload: payload as object | undefined,
    headers: { ...(who?.auth.headers ?? {}), ...headers },
  });
  let parsed: unknown;
  try {
    parsed = res.payload ? JSON.parse(res.payload) : {};
  } catch {
    parsed = { raw: res.payload };
  }
  // Tests validate every answer against its route's joi schema (server.validateResponses), which the document the
  // types come from is built from.
  const body = parsed as Answer<M, U>;
  return {
    status: res.statusCode,
    body,
    headers: res.headers,
    payload: res.payload,
    raw: res.rawPayload,
  };
}

/** Every page of a cursor-paginated GET as `who`: `url` (with its own query), then each `next_cursor` until none. */
export async function allPages<U extends string>(
  app: App,
  who: Caller | null,
  url: U,
): Promise<Array<Call<Answer<'GET', U>>>> {
  const pages: Array<Call<Answer<'GET', U>>> = [];
  let cursor: string | null = null;
  do {
    // A cursor in the query names the same operation as `url`.
    const next = (cursor ? `${url}${url.includes('?') ? '&' : '?'}cursor=${cursor}` : url) as U;
    const page: Call<Answer<'GET', U>> = await call(app, who, 'GET', next);
    pages.push(page);
    cursor = (page.body as { next_cursor?: string | null }).next_cursor ?? null;
  } while (cursor);
  return pages;
}

/** `call` bound to one service: what a plugin's test harness hands its tests. */
export type AppCall = <M extends Method, U extends string>(
  who: Caller | null,
  method: M,
  url: U,
  payload?: unknown,
  headers?: Record<string, string>,
) => Promise<Call<Answer<M, U>>>;

/** `call` on `app`: `const call = callOn(app); await call(owner, 'GET', '/v1/billing')`. */
export const callOn =
  (app: App): AppCall =>
  (who, method, url, payload, headers) =>
    call(app, who, method, url, payload, headers);
