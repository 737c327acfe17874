// An open-loop HTTP/1.1 load generator: sends requests at an even pace over keep-alive
// connections, whatever the answers do, and measures each latency from the time the request was
// due (no coordinated omission: a request that waits for a free connection waits on the clock).
// Written on node:net because fetch spends ~0.7 ms of CPU per request and http.request ~0.3 ms,
// which on a 2-core machine takes the CPU the service is measured on; this one spends a few µs.
import net from 'node:net';

export interface PacedRequest {
  method: 'GET' | 'POST';
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

export interface PacedResult {
  /** Latencies in ms, one per answered request, in completion order. */
  latencies: number[];
  statuses: Map<number, number>;
  errors: number;
  elapsedS: number;
}

interface Pending {
  due: number;
  onResponse?: (status: number, body: string) => void;
}

/** One keep-alive connection with at most one request in flight. */
class Connection {
  readonly socket: net.Socket;
  pending: Pending | null = null;
  private buf: Buffer = Buffer.alloc(0);
  private status = 0;
  private headerEnd = -1;
  private contentLength = -1;
  private chunked = false;

  constructor(host: string, port: number, private readonly done: (c: Connection, p: Pending, status: number, body: Buffer | null) => void, private readonly failed: (c: Connection) => void) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => this.failed(this));
    this.socket.on('close', () => this.failed(this));
  }

  send(bytes: Buffer, p: Pending): void {
    this.pending = p;
    this.socket.write(bytes);
  }

  private onData(chunk: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, chunk]) : chunk;
    for (;;) {
      if (this.headerEnd < 0) {
        const end = this.buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = this.buf.toString('latin1', 0, end);
        this.status = Number(head.slice(9, 12));
        const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        this.contentLength = cl ? Number(cl[1]) : -1;
        this.chunked = /\r\ntransfer-encoding:\s*chunked/i.test(head);
        this.headerEnd = end + 4;
      }
      const body = this.chunked ? this.chunkedBody() : this.plainBody();
      if (!body) return;
      const [content, next] = body;
      this.buf = this.buf.subarray(next);
      this.headerEnd = -1;
      const p = this.pending!;
      this.pending = null;
      this.done(this, p, this.status, p.onResponse ? content : null);
      if (!this.buf.length) return;
    }
  }

  private plainBody(): [Buffer, number] | null {
    const len = Math.max(this.contentLength, 0);
    if (this.buf.length < this.headerEnd + len) return null;
    return [this.buf.subarray(this.headerEnd, this.headerEnd + len), this.headerEnd + len];
  }

  private chunkedBody(): [Buffer, number] | null {
    const parts: Buffer[] = [];
    let at = this.headerEnd;
    for (;;) {
      const eol = this.buf.indexOf('\r\n', at);
      if (eol < 0) return null;
      const size = parseInt(this.buf.toString('latin1', at, eol), 16);
      if (size === 0) {
        const end = this.buf.indexOf('\r\n\r\n', eol);
        return end < 0 ? null : [Buffer.concat(parts), end + 4];
      }
      if (this.buf.length < eol + 2 + size + 2) return null;
      parts.push(this.buf.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
  }
}

function encode(host: string, r: PacedRequest): Buffer {
  const body = r.body === undefined ? null : Buffer.isBuffer(r.body) ? r.body : Buffer.from(r.body);
  let head = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [k, v] of Object.entries(r.headers)) head += `${k}: ${v}\r\n`;
  if (body) head += `content-length: ${body.length}\r\n`;
  head += '\r\n';
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

/**
 * Offers `rate` requests per second for `durationS` seconds at an even pace (one every 1/rate s),
 * opening connections as needed up to `maxConnections` (then requests queue, and their wait
 * counts), and waits for the answers of every request sent.
 */
export async function pacedLoad(opts: {
  url: string;
  rate: number;
  durationS: number;
  request(): PacedRequest;
  onResponse?(status: number, body: string): void;
  maxConnections?: number;
  /**
   * Clients: a fixed set of this many connections, each request on the next one in turn; a
   * client whose previous request is still out sends when it is answered (its wait counts).
   * Without it, a connection is opened whenever none is free (up to maxConnections).
   */
  clients?: number;
}): Promise<PacedResult> {
  const { hostname, port } = new URL(opts.url);
  const host = `${hostname}:${port}`;
  const max = opts.maxConnections ?? 512;
  const idle: Connection[] = [];
  const all = new Set<Connection>();
  const queue: [Buffer, Pending][] = [];
  // Fixed clients: each has its own queue of requests waiting for its connection.
  const clients: Connection[] = [];
  const clientQueues = new Map<Connection, [Buffer, Pending][]>();
  let turn = 0;
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let errors = 0;
  let sent = 0;
  let answered = 0;
  const durationMs = opts.durationS * 1000;
  const interval = 1000 / opts.rate;
  let finish: () => void = () => {};
  const finished = new Promise<void>((r) => (finish = r));
  let stopped = false;
  const maybeFinish = () => {
    if (stopped && answered + errors === sent) finish();
  };

  const done = (c: Connection, p: Pending, status: number, body: Buffer | null) => {
    latencies.push(performance.now() - p.due);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    answered++;
    if (body && p.onResponse) p.onResponse(status, body.toString('utf8'));
    const own = clientQueues.get(c);
    const next = own ? own.shift() : queue.shift();
    if (next) c.send(next[0], next[1]);
    else if (!own) idle.push(c);
    maybeFinish();
  };
  const failed = (c: Connection) => {
    if (!all.delete(c)) return;
    const i = idle.indexOf(c);
    if (i >= 0) idle.splice(i, 1);
    if (c.pending) {
      errors++;
      c.pending = null;
    }
    const own = clientQueues.get(c);
    if (own) errors += own.splice(0).length;
    c.socket.destroy();
    maybeFinish();
  };
  const dispatch = (bytes: Buffer, p: Pending) => {
    if (opts.clients) {
      const c = clients[turn++ % clients.length]!;
      if (!all.has(c)) return void errors++;
      if (c.pending) return void clientQueues.get(c)!.push([bytes, p]);
      return c.send(bytes, p);
    }
    const c = idle.pop();
    if (c) return c.send(bytes, p);
    if (all.size < max) {
      const fresh = new Connection(hostname, Number(port), done, failed);
      all.add(fresh);
      return fresh.send(bytes, p);
    }
    queue.push([bytes, p]);
  };

  for (let i = 0; i < (opts.clients ?? 0); i++) {
    const c = new Connection(hostname, Number(port), done, failed);
    all.add(c);
    clients.push(c);
    clientQueues.set(c, []);
  }
  if (clients.length) await Promise.all(clients.map((c) => new Promise((r) => c.socket.once('connect', r))));

  const start = performance.now();
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (start + sent * interval <= now && sent * interval < durationMs) {
        const due = start + sent * interval;
        sent++;
        dispatch(encode(host, opts.request()), { due, onResponse: opts.onResponse });
      }
      if (sent * interval >= durationMs) return resolve();
      setTimeout(tick, Math.max(0, start + sent * interval - performance.now()));
    };
    tick();
  });
  stopped = true;
  maybeFinish();
  await finished;
  const elapsedS = (performance.now() - start) / 1000;
  for (const c of all) c.socket.destroy();
  return { latencies, statuses, errors, elapsedS };
}
