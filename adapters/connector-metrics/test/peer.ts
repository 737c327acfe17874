import http from 'node:http';
import { serveHttpPeer } from '../../../test/helpers/http-peer.js';

/**
 * A small local peer of a Datadog-style logs search API: `POST /api/v2/logs/events/search` with
 * `DD-API-KEY` + `DD-APPLICATION-KEY` (401 on a wrong API key, 403 on a wrong application key),
 * body `{filter: {query, from, to}, page: {cursor, limit}, sort}`, answers `{data, meta.page.after}`.
 * The query is honoured as far as the adapter uses it (`status:(…)`). `fail` makes the next
 * requests answer that status (429 with Retry-After, 500).
 */
export interface LogsPeer {
  url: string;
  apiKey: string;
  appKey: string;
  logs: Array<Record<string, unknown>>;
  fail: number[];
  bodies: Array<Record<string, unknown>>;
  headers: Array<http.IncomingHttpHeaders>;
  close(): Promise<void>;
}

export async function startLogsPeer(): Promise<LogsPeer> {
  const peer: LogsPeer = {
    url: '',
    apiKey: 'dd-api-0123456789abcdef',
    appKey: 'dd-app-0123456789abcdef0123',
    logs: [],
    fail: [],
    bodies: [],
    headers: [],
    close: () => Promise.resolve(),
  };
  const server = await serveHttpPeer((req, raw, res) => {
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    peer.headers.push(req.headers);
    if (req.method !== 'POST' || req.url !== '/api/v2/logs/events/search') return send(404, { errors: ['Not found'] });
    if (req.headers['dd-api-key'] !== peer.apiKey) return send(401, { errors: ['Unauthorized'] });
    if (req.headers['dd-application-key'] !== peer.appKey) return send(403, { errors: ['Forbidden'] });
    const failing = peer.fail.shift();
    if (failing === 429) return send(429, { errors: ['Too many requests'] }, { 'retry-after': '7' });
    if (failing) return send(failing, { errors: ['Internal Server Error'] });
    let body: {
      filter?: { query?: string; from?: string; to?: string };
      page?: { cursor?: string; limit?: number };
      sort?: string;
    };
    try {
      body = JSON.parse(raw.toString('utf8')) as typeof body;
    } catch {
      return send(400, { errors: ['Malformed JSON'] });
    }
    peer.bodies.push(body);
    const from = new Date(body.filter?.from ?? 0).getTime();
    const to = body.filter?.to ? new Date(body.filter.to).getTime() : Infinity;
    const m = /status:\(([^)]*)\)/.exec(body.filter?.query ?? '');
    const statuses = m ? m[1].split(/\s+OR\s+/) : null;
    const matching = peer.logs
      .filter((l) => {
        const a = l.attributes as { timestamp: string; status: string };
        const at = new Date(a.timestamp).getTime();
        return at >= from && at < to && (!statuses || statuses.includes(a.status));
      })
      .sort(
        (a, b) =>
          String((a.attributes as { timestamp: string }).timestamp).localeCompare(
            String((b.attributes as { timestamp: string }).timestamp),
          ) * (body.sort === '-timestamp' ? -1 : 1),
      );
    const offset = body.page?.cursor
      ? Number(Buffer.from(body.page.cursor, 'base64').toString('utf8').replace('offset:', ''))
      : 0;
    const limit = Math.min(body.page?.limit ?? 10, 1000);
    const page = matching.slice(offset, offset + limit);
    const more = offset + limit < matching.length;
    return send(200, {
      data: page,
      meta: {
        elapsed: 3,
        request_id: 'req',
        status: 'done',
        ...(more ? { page: { after: Buffer.from(`offset:${offset + limit}`).toString('base64') } } : {}),
      },
      links: more ? { next: `${peer.url}/api/v2/logs/events?page[cursor]=x` } : {},
    });
  });
  peer.url = server.url;
  peer.close = () => server.close();
  return peer;
}

let seq = 0;

/** A log as the search API answers it. */
export function apiLog(o: {
  at: Date;
  status?: string;
  message?: string;
  kind?: string;
  stack?: string;
  service?: string;
}): Record<string, unknown> {
  seq++;
  return {
    id: `AQAAAYvL${seq.toString(16).padStart(8, '0')}`,
    type: 'log',
    attributes: {
      timestamp: o.at.toISOString(),
      status: o.status ?? 'error',
      service: o.service ?? 'shop-api',
      host: 'web-1',
      message: o.message ?? 'checkout failed',
      tags: ['env:production', 'version:1.4.2', 'team:payments'],
      attributes: {
        http: { url: 'https://shop.example.com/api/checkout', method: 'POST', useragent: 'Mozilla/5.0' },
        usr: { id: 'u-42', email: 'ada@example.com' },
        error: {
          kind: o.kind ?? 'TypeError',
          message: o.message ?? "Cannot read properties of undefined (reading 'total')",
          stack:
            o.stack ??
            "TypeError: Cannot read properties of undefined (reading 'total')\n    at computeTotal (/srv/app/src/cart.js:41:17)\n    at async Router.handle (/srv/app/node_modules/express/lib/router.js:280:9)",
        },
      },
    },
  };
}
