/**
 * A small client of GitHub's REST API over fetch, with a configurable base URL (github.com,
 * GitHub Enterprise Server, or a local peer in tests). HTTP failures become AdapterErrors with
 * stable codes; 5xx, 429 and exhausted rate limits are retryable.
 */
import { AdapterError, AdapterNotFoundError } from '../../core/contracts/index.js';

export interface RestRequest {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  /** Path under the base URL (`/repos/acme/web`) or an absolute URL. */
  path: string;
  /** `Authorization` header value, e.g. `Bearer <jwt>` or `token <installation token>`. */
  authorization?: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  accept?: string;
}

export interface RestResponse<T> {
  status: number;
  data: T;
  headers: Headers;
}

export class RestClient {
  constructor(
    private readonly baseUrl: string,
    private readonly userAgent: string,
    private readonly timeoutMs: number,
  ) {}

  url(path: string, query?: RestRequest['query']): string {
    const u = new URL(/^https?:\/\//.test(path) ? path : `${this.baseUrl.replace(/\/+$/, '')}${path}`);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined) u.searchParams.set(k, String(v));
    return u.toString();
  }

  async request<T = unknown>(req: RestRequest): Promise<RestResponse<T>> {
    const headers: Record<string, string> = {
      accept: req.accept ?? 'application/vnd.github+json',
      'user-agent': this.userAgent,
      'x-github-api-version': '2022-11-28',
    };
    if (req.authorization) headers.authorization = req.authorization;
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(this.url(req.path, req.query), {
        method: req.method ?? 'GET',
        headers,
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        signal: AbortSignal.timeout(this.timeoutMs),
        redirect: 'follow',
      });
    } catch (err) {
      throw new AdapterError('host_unavailable', `GitHub did not answer ${req.method ?? 'GET'} ${req.path}`, {
        retryable: true,
        cause: err,
      });
    }
    const text = await res.text();
    const isJson = (res.headers.get('content-type') ?? '').includes('json');
    let data: unknown = text;
    if (isJson && text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = text;
      }
    }
    if (res.ok) return { status: res.status, data: data as T, headers: res.headers };
    throw toError(res, data, `${req.method ?? 'GET'} ${req.path}`);
  }
}

function toError(res: Response, data: unknown, what: string): AdapterError {
  const message =
    typeof data === 'object' && data && typeof (data as { message?: unknown }).message === 'string'
      ? (data as { message: string }).message
      : `HTTP ${res.status}`;
  const details = { status: res.status, request: what };
  if (res.status === 404) return new AdapterNotFoundError(`${what}: ${message}`, { details });
  if (res.status === 429 || (res.status === 403 && res.headers.get('x-ratelimit-remaining') === '0')) {
    return new AdapterError('rate_limited', `${what}: ${message}`, {
      retryable: true,
      details: { ...details, reset: res.headers.get('x-ratelimit-reset') },
    });
  }
  if (res.status === 401) return new AdapterError('unauthorized', `${what}: ${message}`, { details });
  if (res.status === 403) return new AdapterError('forbidden', `${what}: ${message}`, { details });
  if (res.status === 409) return new AdapterError('conflict', `${what}: ${message}`, { details });
  if (res.status === 405 || res.status === 422)
    return new AdapterError('unprocessable', `${what}: ${message}`, {
      details: { ...details, errors: (data as { errors?: unknown })?.errors ?? null },
    });
  if (res.status >= 500)
    return new AdapterError('host_unavailable', `${what}: ${message}`, { retryable: true, details });
  return new AdapterError('host_error', `${what}: ${message}`, { details });
}
