import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { SourceMapConsumer } from 'source-map';
import { auditActorOf, type AuditWriter } from '../../../core/audit/audit-writer.js';
import type { StackFrame } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import type { StoredFrame } from '../models.js';
import type { Actor, WorkspaceOpener } from './connectors.js';
import type { IncomingEvent } from './group-writer.js';
import { parseStack } from './grouping.js';
import { TtlMap } from '../../../core/data/ttl-map.js';

/**
 * Source maps of a workspace's releases (section sourcemaps) and the symbolication of error
 * frames with them. docs/proactive.md ("Source maps") explains the design.
 */

export interface SourceMapLimits {
  /** Largest single map (bytes of its JSON text); larger answers 413 source_map_too_large. */
  maxMapBytes: number;
  /** Most files in one upload. */
  maxFiles: number;
  /** Parsed maps kept per process (LRU). */
  cacheSize: number;
  /** Longest ingest waits for symbolication of a batch; beyond it the batch is stored as it came. */
  timeoutMs: number;
  /** How long "this bundle has no map" is remembered per process (uploads in this process forget it at once). */
  missCacheMs: number;
}

export interface SourceMapRow {
  id: string;
  org_id: string;
  workspace_id: string;
  release: string;
  url_path: string;
  size: number;
  sha256: string;
  sources_count: number;
  created_at: Date;
  updated_at: Date;
}

const META = ['id', 'org_id', 'workspace_id', 'release', 'url_path', 'size', 'sha256', 'sources_count', 'created_at', 'updated_at'] as const;
const ADMIN = new Set(['owner', 'admin']);
const iso = (d: Date | string) => new Date(d).toISOString();
const actorOf = (a: Actor) => auditActorOf(a.principal);

/**
 * The URL path a bundle is known by: `https://cdn.example.com/static/app.js?v=3` and
 * `~/static/app.js` (Sentry's "any host") both give `/static/app.js`. Null when it is no URL or path.
 */
export function bundlePath(fileOrUrl: string): string | null {
  let f = fileOrUrl.trim();
  if (!f) return null;
  if (f.startsWith('~/')) f = f.slice(1);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(f)) {
    try {
      const u = new URL(f);
      if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'file:') return null;
      f = u.pathname;
    } catch {
      return null;
    }
  }
  f = f.replace(/[?#].*$/, '');
  if (!f.startsWith('/')) return null;
  try {
    f = decodeURI(f);
  } catch {
    /* keep as sent */
  }
  return f.length <= 1000 ? f : null;
}

export function serializeSourceMap(r: SourceMapRow) {
  return {
    id: r.id,
    workspace_id: r.workspace_id,
    release: r.release,
    url_path: r.url_path,
    size: Number(r.size),
    sha256: r.sha256,
    sources_count: Number(r.sources_count),
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

interface MapIssue {
  index: number;
  url_path: string;
  code: string;
  message: string;
}

/** Checks that a text is a source map (revision 3, plain or indexed): code `ok` with its source count, else why not. */
async function checkMap(text: string): Promise<{ code: string; message: string; sources?: number }> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { code: 'invalid_json', message: 'The map is not JSON' };
  }
  const m = raw as { version?: unknown; mappings?: unknown; sources?: unknown; sections?: unknown };
  if (!m || typeof m !== 'object' || Array.isArray(m)) return { code: 'invalid_source_map', message: 'The map is not a JSON object' };
  if (m.version !== 3) return { code: 'unsupported_version', message: 'Only source map revision 3 is supported ("version": 3)' };
  const indexed = Array.isArray(m.sections);
  if (!indexed && (typeof m.mappings !== 'string' || !Array.isArray(m.sources))) {
    return { code: 'invalid_source_map', message: 'A source map needs "sources" (an array) and "mappings" (a string)' };
  }
  let consumer: SourceMapConsumer | null = null;
  try {
    consumer = await new SourceMapConsumer(raw as ConstructorParameters<typeof SourceMapConsumer>[0]);
    // Decoding the mappings once proves them well formed (the VLQ data is read lazily otherwise).
    const sources = new Set<string>();
    consumer.eachMapping((m) => {
      if (m.source) sources.add(m.source);
    });
    return { code: 'ok', message: '', sources: sources.size };
  } catch (err) {
    return { code: 'invalid_source_map', message: `The map cannot be read: ${(err as Error).message}`.slice(0, 300) };
  } finally {
    consumer?.destroy();
  }
}

export interface SourceMapServiceDeps {
  db: Knex;
  audit: AuditWriter;
  workspaces: () => WorkspaceOpener;
  symbolicator: Symbolicator;
  limits: SourceMapLimits;
}

/** Upload, list and delete of a release's maps; every change audited. */
export class SourceMapService {
  constructor(private readonly d: SourceMapServiceDeps) {}

  private requireAdmin(a: Actor): void {
    if (!ADMIN.has(a.principal.role)) throw httpError(403, 'forbidden', 'Only owners and admins manage source maps');
  }

  async upload(a: Actor, input: { workspace_id: string; release: string; files: Array<{ url_path: string; map: string }> }) {
    this.requireAdmin(a);
    const ws = await this.d.workspaces().open(a.principal, input.workspace_id);
    const issues: MapIssue[] = [];
    const seen = new Set<string>();
    const checked: Array<{ url_path: string; map: string; size: number; sha256: string; sources: number }> = [];
    for (const [index, f] of input.files.entries()) {
      const path = bundlePath(f.url_path);
      const size = Buffer.byteLength(f.map, 'utf8');
      if (size > this.d.limits.maxMapBytes) {
        throw httpError(413, 'source_map_too_large', `The map for ${f.url_path} is larger than ${this.d.limits.maxMapBytes} bytes`, { index, url_path: f.url_path, size, limit: this.d.limits.maxMapBytes });
      }
      if (!path) {
        issues.push({ index, url_path: f.url_path, code: 'invalid_url_path', message: 'url_path must be the bundle\'s URL or its path (starting with /)' });
        continue;
      }
      if (seen.has(path)) {
        issues.push({ index, url_path: f.url_path, code: 'duplicate_url_path', message: 'Two files of this upload have the same url_path' });
        continue;
      }
      seen.add(path);
      const check = await checkMap(f.map);
      if (check.code !== 'ok') {
        issues.push({ index, url_path: f.url_path, code: check.code, message: check.message });
        continue;
      }
      checked.push({ url_path: path, map: f.map, size, sha256: createHash('sha256').update(f.map).digest('hex'), sources: check.sources ?? 0 });
    }
    if (issues.length) throw httpError(422, 'invalid_source_map', 'Some source maps cannot be used; nothing was stored', { errors: issues });

    const now = new Date();
    const rows = await this.d.db.transaction(async (trx) => {
      const before = new Set((await trx('source_maps').where({ org_id: a.principal.orgId, workspace_id: ws.id, release: input.release }).whereIn('url_path', checked.map((c) => c.url_path)).pluck('url_path')) as string[]);
      const out = (await trx('source_maps')
        .insert(checked.map((c) => ({
          id: newId('sm'), org_id: a.principal.orgId, workspace_id: ws.id, release: input.release, url_path: c.url_path, map: c.map,
          size: c.size, sha256: c.sha256, sources_count: c.sources, uploaded_by: a.principal.userId ?? a.principal.tokenId ?? null, created_at: now, updated_at: now,
        })))
        .onConflict(['workspace_id', 'release', 'url_path'])
        .merge(['map', 'size', 'sha256', 'sources_count', 'uploaded_by', 'updated_at'])
        .returning([...META])) as SourceMapRow[];
      await this.d.audit.record(trx, {
        orgId: a.principal.orgId,
        actor: actorOf(a),
        action: 'sourcemap.uploaded',
        target: { type: 'release', id: input.release },
        workspaceId: ws.id,
        metadata: {
          release: input.release,
          files: checked.map((c) => ({ url_path: c.url_path, size: c.size, sha256: c.sha256, replaced: before.has(c.url_path) })),
        },
        ip: a.ip, userAgent: a.userAgent, requestId: a.requestId,
      });
      return out;
    });
    this.d.symbolicator.forget(ws.id, input.release);
    return { workspace_id: ws.id, release: input.release, files: rows.sort((x, y) => (x.url_path < y.url_path ? -1 : 1)).map(serializeSourceMap) };
  }

  async list(a: Actor, q: { workspace_id: string; release: string; cursor?: string; limit?: number }): Promise<Page<ReturnType<typeof serializeSourceMap>>> {
    const ws = await this.d.workspaces().open(a.principal, q.workspace_id);
    const query = this.d.db('source_maps').where({ org_id: a.principal.orgId, workspace_id: ws.id, release: q.release }).select([...META]);
    const page = await paginate<Record<string, unknown>>(query, [{ column: 'url_path', direction: 'asc', type: 'string' }, { column: 'id', direction: 'asc', type: 'string' }], q);
    return { items: (page.items as unknown as SourceMapRow[]).map(serializeSourceMap), next_cursor: page.next_cursor };
  }

  async releases(a: Actor, q: { workspace_id: string; cursor?: string; limit?: number }) {
    const ws = await this.d.workspaces().open(a.principal, q.workspace_id);
    const db = this.d.db;
    const inner = db('source_maps').where({ org_id: a.principal.orgId, workspace_id: ws.id })
      .groupBy('release')
      .select('release')
      .count({ files: '*' })
      .sum({ size: 'size' })
      .max({ last_uploaded_at: 'updated_at' })
      .min({ first_uploaded_at: 'created_at' });
    const query = db.from(inner.as('r')).select('*');
    const page = await paginate<Record<string, unknown>>(query, [{ column: 'r.last_uploaded_at', direction: 'desc', type: 'date', field: 'last_uploaded_at' }, { column: 'r.release', direction: 'desc', type: 'string', field: 'release' }], q);
    return {
      items: page.items.map((r) => ({
        workspace_id: ws.id,
        release: r.release as string,
        files: Number(r.files),
        size: Number(r.size),
        first_uploaded_at: iso(r.first_uploaded_at as Date),
        last_uploaded_at: iso(r.last_uploaded_at as Date),
      })),
      next_cursor: page.next_cursor,
    };
  }

  async remove(a: Actor, q: { workspace_id: string; release: string }) {
    this.requireAdmin(a);
    const ws = await this.d.workspaces().open(a.principal, q.workspace_id);
    const deleted = await this.d.db.transaction(async (trx) => {
      const gone = (await trx('source_maps').where({ org_id: a.principal.orgId, workspace_id: ws.id, release: q.release }).delete().returning(['url_path', 'size'])) as Array<{ url_path: string; size: number }>;
      if (!gone.length) throw notFound('This release has no source maps');
      await this.d.audit.record(trx, {
        orgId: a.principal.orgId,
        actor: actorOf(a),
        action: 'sourcemap.deleted',
        target: { type: 'release', id: q.release },
        workspaceId: ws.id,
        metadata: { release: q.release, files: gone.map((g) => g.url_path).sort() },
        ip: a.ip, userAgent: a.userAgent, requestId: a.requestId,
      });
      return gone.length;
    });
    this.d.symbolicator.forget(ws.id, q.release);
    return { workspace_id: ws.id, release: q.release, deleted };
  }
}

// ---- symbolication

type Generated = NonNullable<StoredFrame['generated']>;

/** A frame mapped to its original source; `generated` keeps where it was in the bundle. */
export function mapFrame(consumer: SourceMapConsumer, f: StackFrame): StoredFrame | null {
  if (typeof f.line !== 'number' || f.line < 1) return null;
  // Stack columns are 1-based; source-map columns are 0-based. A frame without a column maps its line's start.
  const column = typeof f.column === 'number' && f.column >= 1 ? f.column - 1 : 0;
  const pos = consumer.originalPositionFor({ line: f.line, column });
  if (!pos.source || pos.line === null) return null;
  const generated: Generated = { file: f.file, function: f.function ?? null, line: f.line, column: f.column ?? null };
  const out: StoredFrame = { ...f, file: pos.source, line: pos.line, column: (pos.column ?? 0) + 1, generated };
  if (pos.name) out.function = pos.name;
  delete out.in_app; // decided again on the original file (a vendored source becomes not in-app)
  if (typeof f.in_app === 'boolean') out.in_app = f.in_app;
  return out;
}

/** A small LRU of parsed maps; evicted consumers are destroyed (they hold WebAssembly memory). */
class ConsumerCache {
  private readonly map = new Map<string, Promise<SourceMapConsumer | null>>();
  constructor(private readonly size: number) {}

  get(key: string): Promise<SourceMapConsumer | null> | undefined {
    const hit = this.map.get(key);
    if (hit) {
      this.map.delete(key);
      this.map.set(key, hit);
    }
    return hit;
  }

  set(key: string, value: Promise<SourceMapConsumer | null>): void {
    this.map.set(key, value);
    while (this.map.size > this.size) {
      const oldest = this.map.keys().next().value as string;
      this.drop(oldest);
    }
  }

  drop(key: string): void {
    const p = this.map.get(key);
    this.map.delete(key);
    void p?.then((c) => c?.destroy(), () => undefined);
  }

  dropPrefix(prefix: string): void {
    for (const k of [...this.map.keys()]) if (k.startsWith(prefix)) this.drop(k);
  }

  clear(): void {
    for (const k of [...this.map.keys()]) this.drop(k);
  }
}

/**
 * Maps the frames of incoming events through their release's source maps before they are
 * grouped. Parsed maps are cached per (workspace, release, URL path); bundles without a map are
 * remembered for missCacheMs. A batch waits at most timeoutMs: beyond it, it is stored as it came
 * (the parse goes on and serves the next events).
 */
export class Symbolicator {
  private readonly consumers: ConsumerCache;
  /** (workspace, release, URL path) of bundles without a map. */
  private readonly misses: TtlMap<string, true>;
  /** Per workspace, the releases that have any map. */
  private readonly mapped: TtlMap<string, Set<string>>;

  constructor(
    private readonly db: Knex,
    private readonly limits: Pick<SourceMapLimits, 'cacheSize' | 'timeoutMs' | 'missCacheMs'>,
    private readonly log: Pick<Logger, 'warn'>,
  ) {
    this.consumers = new ConsumerCache(limits.cacheSize);
    this.misses = new TtlMap(limits.missCacheMs, 50_000);
    this.mapped = new TtlMap(limits.missCacheMs);
  }

  /** Forgets cached maps (and misses) of a release after an upload or delete in this process. */
  forget(workspaceId: string, release: string): void {
    const prefix = `${workspaceId}\n${release}\n`;
    this.mapped.delete(workspaceId);
    this.consumers.dropPrefix(prefix);
    this.misses.deleteWhere((_, key) => key.startsWith(prefix));
  }

  stop(): void {
    this.consumers.clear();
  }

  /** The events with frames mapped where a map exists; the others as they came. Never throws. */
  async symbolicate(events: IncomingEvent[]): Promise<IncomingEvent[]> {
    const work = this.run(events).catch((err: unknown) => {
      this.log.warn({ err }, 'proactive: symbolication failed; events stored as they came');
      return events;
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<IncomingEvent[]>((resolve) => {
      timer = setTimeout(() => {
        this.log.warn({ events: events.length, ms: this.limits.timeoutMs }, 'proactive: symbolication too slow; events stored as they came');
        resolve(events);
      }, this.limits.timeoutMs);
    });
    try {
      return await Promise.race([work, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async run(events: IncomingEvent[]): Promise<IncomingEvent[]> {
    const mapped = await this.releasesWithMaps(events);
    // Which (workspace, release, path) the batch needs.
    const needed = new Map<string, { workspaceId: string; release: string; path: string }>();
    const framesOf = new Map<IncomingEvent, StackFrame[]>();
    for (const e of events) {
      if (!e.event.release || !mapped.get(e.workspaceId)?.has(e.event.release)) continue;
      const frames = e.event.frames?.length ? e.event.frames : parseStack(e.event.stack);
      if (!frames.length) continue;
      framesOf.set(e, frames);
      for (const f of frames) {
        const path = typeof f.line === 'number' ? bundlePath(f.file) : null;
        if (path) needed.set(`${e.workspaceId}\n${e.event.release}\n${path}`, { workspaceId: e.workspaceId, release: e.event.release, path });
      }
    }
    if (!needed.size) return events;
    const consumers = new Map<string, SourceMapConsumer | null>();
    const load: Array<{ key: string; workspaceId: string; release: string; path: string }> = [];
    for (const [key, n] of needed) {
      if (!this.misses.get(key) && !this.consumers.get(key)) load.push({ key, ...n });
    }
    if (load.length) {
      const rows = (await this.db('source_maps')
        .whereIn('workspace_id', [...new Set(load.map((l) => l.workspaceId))])
        .whereIn('release', [...new Set(load.map((l) => l.release))])
        .whereIn('url_path', [...new Set(load.map((l) => l.path))])
        .select('workspace_id', 'release', 'url_path', 'map')) as Array<{ workspace_id: string; release: string; url_path: string; map: string }>;
      const found = new Map(rows.map((r) => [`${r.workspace_id}\n${r.release}\n${r.url_path}`, r.map]));
      for (const l of load) {
        const text = found.get(l.key);
        if (text === undefined) {
          this.misses.set(l.key, true);
          continue;
        }
        this.consumers.set(l.key, (async () => {
          try {
            return await new SourceMapConsumer(JSON.parse(text) as ConstructorParameters<typeof SourceMapConsumer>[0]);
          } catch (err) {
            this.log.warn({ err, url_path: l.path }, 'proactive: a stored source map cannot be read');
            return null;
          }
        })());
      }
    }
    for (const key of needed.keys()) {
      const p = this.consumers.get(key);
      if (p) consumers.set(key, await p);
    }
    if (![...consumers.values()].some(Boolean)) return events;

    return events.map((e) => {
      const frames = framesOf.get(e);
      if (!frames) return e;
      let mapped = 0;
      const out = frames.map((f) => {
        const path = typeof f.line === 'number' ? bundlePath(f.file) : null;
        const c = path ? consumers.get(`${e.workspaceId}\n${e.event.release}\n${path}`) : null;
        const m = c ? mapFrame(c, f) : null;
        if (m) mapped++;
        return m ?? f;
      });
      if (!mapped) return e;
      return { ...e, symbolicated: true, event: { ...e.event, frames: out } };
    });
  }

  /**
   * The releases with maps of the batch's workspaces (most releases have none: their events skip
   * stack parsing and map lookups). Kept missCacheMs per workspace; an upload in this process
   * forgets it at once.
   */
  private async releasesWithMaps(events: IncomingEvent[]): Promise<Map<string, Set<string>>> {
    const out = new Map<string, Set<string>>();
    const load: string[] = [];
    for (const id of new Set(events.filter((e) => e.event.release).map((e) => e.workspaceId))) {
      const hit = this.mapped.get(id);
      if (hit) out.set(id, hit);
      else load.push(id);
    }
    if (!load.length) return out;
    const rows = (await this.db('source_maps').whereIn('workspace_id', load).distinct('workspace_id', 'release')) as Array<{ workspace_id: string; release: string }>;
    for (const id of load) out.set(id, this.mapped.set(id, new Set()));
    for (const r of rows) out.get(r.workspace_id)!.add(r.release);
    return out;
  }
}
