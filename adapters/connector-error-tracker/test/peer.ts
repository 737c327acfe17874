import { createHmac } from 'node:crypto';
import { serveHttpPeer } from '../../../test/helpers/http-peer.js';

/**
 * A small local peer of a Sentry-compatible tracker's REST API (no emulator exists on npm):
 * `GET /api/0/projects/{org}/{project}/` and `…/events/?full=true&start&end&cursor`, Bearer
 * token auth, newest first, `Link` header pagination with `results` and `cursor` as the tracker
 * sends them. `failNext` makes the next requests answer 500.
 */
export interface TrackerPeer {
  url: string;
  token: string;
  events: Array<Record<string, unknown>>;
  pageSize: number;
  failNext: number;
  requests: string[];
  close(): Promise<void>;
}

export async function startTrackerPeer(
  opts: { org?: string; project?: string; token?: string; pageSize?: number } = {},
): Promise<TrackerPeer> {
  const org = opts.org ?? 'acme';
  const project = opts.project ?? 'shop';
  const peer: TrackerPeer = {
    url: '',
    token: opts.token ?? 'sntrys_peer_token_0123456789',
    events: [],
    pageSize: opts.pageSize ?? 2,
    failNext: 0,
    requests: [],
    close: () => Promise.resolve(),
  };
  const server = await serveHttpPeer((req, _body, res) => {
    const url = new URL(req.url ?? '/', 'http://peer');
    peer.requests.push(`${req.method} ${url.pathname}${url.search}`);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${peer.token}`) return send(401, { detail: 'Invalid token' });
    if (peer.failNext > 0) {
      peer.failNext--;
      return send(500, { detail: 'Internal Error' });
    }
    const base = `/api/0/projects/${org}/${project}/`;
    if (url.pathname === base) return send(200, { id: '42', slug: project, name: 'Shop' });
    if (url.pathname !== `${base}events/`) return send(404, { detail: 'The requested resource does not exist' });
    const start = url.searchParams.get('start') ? new Date(url.searchParams.get('start')!).getTime() : 0;
    const end = url.searchParams.get('end') ? new Date(url.searchParams.get('end')!).getTime() : Infinity;
    const inWindow = peer.events
      .filter((e) => {
        const at = new Date(String(e.dateCreated)).getTime();
        return at >= start && at <= end;
      })
      .sort((a, b) => String(b.dateCreated).localeCompare(String(a.dateCreated)));
    const offset = Number((url.searchParams.get('cursor') ?? '0:0:0').split(':')[1] ?? 0);
    const page = inWindow.slice(offset, offset + peer.pageSize);
    const more = offset + peer.pageSize < inWindow.length;
    const link = (cursor: string, rel: string, results: boolean) => {
      const u = new URL(`${peer.url}${url.pathname}`);
      url.searchParams.forEach((v, k) => u.searchParams.set(k, v));
      u.searchParams.set('cursor', cursor);
      return `<${u.href}>; rel="${rel}"; results="${results}"; cursor="${cursor}"`;
    };
    const prevCursor = `0:${Math.max(0, offset - peer.pageSize)}:1`;
    const nextCursor = `0:${offset + peer.pageSize}:0`;
    return send(200, page, { link: `${link(prevCursor, 'previous', offset > 0)}, ${link(nextCursor, 'next', more)}` });
  });
  peer.url = server.url;
  peer.close = () => server.close();
  return peer;
}

let seq = 0;

/** An event as the tracker's API answers it with full=true. */
export function apiEvent(o: {
  at: Date;
  issue?: string;
  message?: string;
  type?: string;
  user?: string;
  file?: string;
}): Record<string, unknown> {
  seq++;
  const eventId = `${seq.toString(16).padStart(8, '0')}${'a'.repeat(24)}`;
  return {
    id: eventId,
    eventID: eventId,
    groupID: o.issue ?? '101',
    title: `${o.type ?? 'TypeError'}: ${o.message ?? 'x is undefined'}`,
    message: '',
    dateCreated: o.at.toISOString(),
    platform: 'javascript',
    tags: [
      { key: 'environment', value: 'production' },
      { key: 'release', value: 'shop@1.2.0' },
      { key: 'url', value: 'https://shop.example.com/checkout' },
    ],
    user: { id: o.user ?? 'u-1', email: `${o.user ?? 'u-1'}@example.com` },
    entries: [
      {
        type: 'exception',
        data: {
          values: [
            {
              type: o.type ?? 'TypeError',
              value: o.message ?? 'x is undefined',
              stacktrace: {
                frames: [
                  {
                    filename: 'node_modules/react-dom/index.js',
                    function: 'render',
                    lineno: 1,
                    colno: 1,
                    in_app: false,
                  },
                  { filename: o.file ?? 'app/checkout.js', function: 'submit', lineno: 10, colno: 5, in_app: true },
                ],
              },
            },
          ],
        },
      },
    ],
  };
}

/** A webhook delivery as the tracker signs it: hex HMAC-SHA256 of the raw body with the client secret. */
export function signedDelivery(
  secret: string,
  resource: string,
  body: unknown,
): { headers: Record<string, string>; rawBody: Buffer } {
  const rawBody = Buffer.from(JSON.stringify(body));
  return {
    headers: {
      'content-type': 'application/json',
      'request-id': `req-${++seq}`,
      'sentry-hook-resource': resource,
      'sentry-hook-timestamp': String(Math.floor(Date.now() / 1000)),
      'sentry-hook-signature': createHmac('sha256', secret).update(rawBody).digest('hex'),
    },
    rawBody,
  };
}

/** The body of an `event_alert` delivery (action triggered) carrying one full event. */
export function eventAlertBody(o: {
  eventId: string;
  issue: string;
  message: string;
  user?: string;
  at?: Date;
}): Record<string, unknown> {
  return {
    action: 'triggered',
    installation: { uuid: '7a485448-a9e2-4c85-8a3c-4f44175783c9' },
    data: {
      event: {
        event_id: o.eventId,
        issue_id: o.issue,
        level: 'error',
        datetime: (o.at ?? new Date()).toISOString(),
        release: 'shop@1.2.0',
        environment: 'production',
        fingerprint: ['{{ default }}'],
        request: { url: 'https://shop.example.com/cart?id=1', headers: [['User-Agent', 'Mozilla/5.0']] },
        user: { id: o.user ?? 'u-9', email: `${o.user ?? 'u-9'}@example.com`, ip_address: '203.0.113.9' },
        contexts: { browser: { name: 'Chrome', version: '120.0' }, os: { name: 'macOS' } },
        exception: {
          values: [
            {
              type: 'TypeError',
              value: o.message,
              stacktrace: {
                frames: [
                  {
                    filename: 'app/cart.js',
                    abs_path: 'https://shop.example.com/static/app/cart.js',
                    function: 'addItem',
                    lineno: 12,
                    colno: 3,
                    in_app: true,
                  },
                ],
              },
            },
          ],
        },
        web_url: 'https://tracker.example.com/organizations/acme/issues/202/events/x/',
      },
      triggered_rule: 'Notify on new errors',
    },
    actor: { type: 'application', id: 'sentry', name: 'Sentry' },
  };
}
