import type { App } from '../../core/kernel/app.js';

// API answers are checked field by field in tests.
export type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** An answer of `call`: the status, the JSON body (`{ raw }` when the payload is not JSON), headers, payload. */
export interface Call {
  status: number;
  body: Json;
  headers: Record<string, unknown>;
  payload: string;
  raw: Buffer;
}

/** Whoever calls: a signed-up member, an API key holder… (anything with headers to send). */
export interface Caller {
  auth: { headers: Record<string, string> };
}

/** A request through `server.inject` as `who` (null: anonymous), with extra headers. */
export async function call(
  app: App,
  who: Caller | null,
  method: string,
  url: string,
  payload?: unknown,
  headers: Record<string, string> = {},
): Promise<Call> {
  const res = await app.server.inject({
    method,
    url,
    payload: payload as object | undefined,
    headers: { ...(who?.auth.headers ?? {}), ...headers },
  });
  let body: Json;
  try {
    body = res.payload ? (JSON.parse(res.payload) as Json) : {};
  } catch {
    body = { raw: res.payload };
  }
  return {
    status: res.statusCode,
    body,
    headers: res.headers,
    payload: res.payload,
    raw: res.rawPayload,
  };
}

/** Every page of a cursor-paginated GET as `who`: `url` (with its own query), then each `next_cursor` until none. */
export async function allPages(app: App, who: Caller | null, url: string): Promise<Call[]> {
  const pages: Call[] = [];
  let cursor: string | null = null;
  do {
    const page = await call(app, who, 'GET', cursor ? `${url}${url.includes('?') ? '&' : '?'}cursor=${cursor}` : url);
    pages.push(page);
    cursor = (page.body.next_cursor as string | null | undefined) ?? null;
  } while (cursor);
  return pages;
}
