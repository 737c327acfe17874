// An open-loop HTTP/1.1 load generator: sends requests at an even pace over keep-alive
// connections, whatever the answers do, and measures each latency from the time the request was
// due (no coordinated omission: a request that waits for a free connection waits on the clock).
// Written on node:net because fetch spends ~0.7 ms of CPU per request and http.request ~0.3 ms,
// which on a 2-core machine takes the CPU the service is measured on; this one spends a few µs.
import { appendFileSync } from 'node:fs';
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
  /** When it went on the wire (later than due when its client was still waiting for an answer). */
  sentAt?: number;
  onResponse?: (status: number, body: string) => void;
}

/**
 * One keep-alive connection with at most one request in flight. The answer's bytes are counted,
 * not copied: a body is joined only when the caller reads it (onResponse).
 */
class Connection {
  readonly socket: net.Socket;
  pending: Pending | null = null;
  /** When its last answer arrived (an idle connection the server may close soon is not reused). */
  idleSince = 0;
  private head: Buffer = Buffer.alloc(0);
  private body: Buffer[] = [];
  private bodyBytes = 0;
  private status = 0;
  /** Body length of the answer being read: -1 before its headers, -2 for a chunked body. */
  private expected = -1;

  constructor(
    host: string,
    port: number,
    private readonly done: (c: Connection, p: Pending, status: number, body: Buffer | null) => void,
    private readonly failed: (c: Connection) => void,
  ) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', () => this.failed(this));
    this.socket.on('close', () => this.failed(this));
  }

  send(bytes: Buffer, p: Pending): void {
    this.pending = p;
    p.sentAt = performance.now();
    this.socket.write(bytes);
  }

  private onData(chunk: Buffer): void {
    let data: Buffer | null = chunk;
    while (data && data.length) {
      if (this.expected === -1) {
        this.head = this.head.length ? Buffer.concat([this.head, data]) : data;
        const end = this.head.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = this.head.toString('latin1', 0, end);
        this.status = Number(head.slice(9, 12));
        const cl = /\r\ncontent-length:\s*(\d+)/i.exec(head);
        this.expected = /\r\ntransfer-encoding:\s*chunked/i.test(head) ? -2 : cl ? Number(cl[1]) : 0;
        data = this.head.subarray(end + 4);
        this.head = Buffer.alloc(0);
        this.body = [];
        this.bodyBytes = 0;
        if (this.expected === 0) data = this.finish(data);
        continue;
      }
      if (this.expected === -2) {
        // Chunked (rare here): gather, then look for the last chunk.
        this.body.push(data);
        const all = Buffer.concat(this.body);
        this.body = [all];
        const parsed = dechunk(all);
        if (!parsed) return;
        this.body = [parsed[0]];
        this.bodyBytes = parsed[0].length;
        data = this.finish(all.subarray(parsed[1]));
        continue;
      }
      const need = this.expected - this.bodyBytes;
      const take = data.length <= need ? data : data.subarray(0, need);
      if (this.pending?.onResponse) this.body.push(take);
      this.bodyBytes += take.length;
      if (this.bodyBytes < this.expected) return;
      data = this.finish(data.subarray(take.length));
    }
  }

  /** One answer complete: hands it over and returns the bytes that follow it. */
  private finish(rest: Buffer): Buffer | null {
    const p = this.pending!;
    this.pending = null;
    this.expected = -1;
    const body = p.onResponse ? (this.body.length === 1 ? this.body[0] : Buffer.concat(this.body)) : null;
    this.body = [];
    this.done(this, p, this.status, body);
    return rest.length ? rest : null;
  }
}

/** A whole chunked body from the start of `buf`: [content, bytes used], or null when incomplete. */
function dechunk(buf: Buffer): [Buffer, number] | null {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf('\r\n', at);
    if (eol < 0) return null;
    const size = parseInt(buf.toString('latin1', at, eol), 16);
    if (size === 0) {
      const end = buf.indexOf('\r\n', eol + 2);
      return end < 0 ? null : [Buffer.concat(parts), end + 2];
    }
    if (buf.length < eol + 2 + size + 2) return null;
    parts.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
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
  // Function properties: called without `this` (onResponse is handed to each dispatch).
  request: () => PacedRequest;
  onResponse?: (status: number, body: string) => void;
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
  // BENCH_PACED_TRACE=file: one line per answer (due ms from the start, sent late by ms, latency ms, status).
  const trace: string[] | null = process.env.BENCH_PACED_TRACE ? [] : null;
  let start = performance.now();
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
    const now = performance.now();
    latencies.push(now - p.due);
    trace?.push(
      `${(p.due - start).toFixed(1)} ${((p.sentAt ?? p.due) - p.due).toFixed(1)} ${(now - p.due).toFixed(1)} ${status}`,
    );
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    answered++;
    if (body && p.onResponse) p.onResponse(status, body.toString('utf8'));
    const own = clientQueues.get(c);
    const next = own ? own.shift() : queue.shift();
    c.idleSince = performance.now();
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
      const c = clients[turn++ % clients.length];
      if (!all.has(c)) return void errors++;
      if (c.pending) return void clientQueues.get(c)!.push([bytes, p]);
      return c.send(bytes, p);
    }
    let c = idle.pop();
    // Node's server closes a keep-alive connection after 5 s without a request: a request sent
    // into that close would fail, so a connection idle that long is closed here instead.
    while (c && performance.now() - c.idleSince > 4000) {
      all.delete(c);
      c.socket.destroy();
      c = idle.pop();
    }
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

  start = performance.now();
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
  if (trace)
    appendFileSync(
      process.env.BENCH_PACED_TRACE!,
      `# ${opts.rate}/s for ${opts.durationS} s from ${new Date(Date.now() - (performance.now() - start)).toISOString()}: due sent-late latency status\n${trace.join('\n')}\n`,
    );
  return { latencies, statuses, errors, elapsedS };
}
