import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { SourceMapConsumer } from 'source-map';
import type { StackFrame } from '../../../core/contracts/index.js';
import { TtlMap } from '../../../core/data/ttl-map.js';
import type { StoredFrame } from '../models.js';
import { ConsumerCache } from './consumer-cache.js';
import type { IncomingEvent } from './group-writer.js';
import { parseStack } from './grouping.js';
import { bundlePath, canonicalDebugId } from './source-map-parse.js';
import type { SourceMapLimits } from './sourcemaps.js';

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
  // A source under node_modules is a library's, whatever the SDK guessed from the bundle URL (Sentry's own rule,
  // `path:**/node_modules/** -app`); otherwise the SDK's explicit in_app stands, and without one grouping decides.
  delete out.in_app;
  if (/(^|\/)node_modules\//.test(pos.source)) out.in_app = false;
  else if (typeof f.in_app === 'boolean') out.in_app = f.in_app;
  return out;
}
/** Cache key of a bundle's map found by release and URL path. */
const releaseKey = (workspaceId: string, release: string, path: string) => `${workspaceId}\n${release}\n${path}`;
/** Cache key of a map found by debug id (NUL never occurs in a release: Postgres text cannot hold it). */
const debugKey = (workspaceId: string, debugId: string) => `${workspaceId}\u0000${debugId}`;

/** The debug ids an SDK event names, by bundle URL and by its path (`debug_meta.images`, see EventContext). */
function debugIdsOf(e: IncomingEvent): Map<string, string> | null {
  const ids = e.event.context?.debug_ids;
  if (!ids) return null;
  const out = new Map<string, string>();
  for (const [file, raw] of Object.entries(ids)) {
    const id = canonicalDebugId(raw);
    if (!id) continue;
    out.set(file, id);
    const path = bundlePath(file);
    if (path && !out.has(path)) out.set(path, id);
  }
  return out.size ? out : null;
}

/** One frame to map: where its map may be found, by debug id first, else by release and URL path. */
interface FramePlan {
  frame: StackFrame;
  debug?: string;
  release?: string;
}

interface Lookup {
  workspaceId: string;
  /** A debug id, or a URL path of `release`. */
  debugId?: string;
  release?: string;
  path?: string;
}

/**
 * Maps the frames of incoming events through source maps before they are grouped: the map an
 * SDK names by debug id (any release of the workspace), else the map of the event's release for
 * the frame's URL path. Parsed maps are cached per (workspace, debug id) and (workspace, release,
 * URL path); lookups without a map are remembered for missCacheMs. A batch waits at most
 * timeoutMs: beyond it, it is stored as it came (the parse goes on and serves the next events).
 */
export class Symbolicator {
  private readonly consumers: ConsumerCache;
  /** Cache keys (release or debug id) of lookups without a map. */
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

  /**
   * Forgets cached maps (and misses) of a release after an upload or delete in this process, and
   * the workspace's lookups by debug id (the release's maps may carry any of them).
   */
  forget(workspaceId: string, release: string): void {
    const prefixes = [`${workspaceId}\n${release}\n`, `${workspaceId}\u0000`];
    this.mapped.delete(workspaceId);
    for (const prefix of prefixes) {
      this.consumers.dropPrefix(prefix);
      this.misses.deleteWhere((_, key) => key.startsWith(prefix));
    }
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
        this.log.warn(
          { events: events.length, ms: this.limits.timeoutMs },
          'proactive: symbolication too slow; events stored as they came',
        );
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
    // Which maps the batch needs: by debug id, and by (workspace, release, path).
    const byDebugId = new Map<string, Lookup>();
    const byRelease = new Map<string, Lookup>();
    const plans = new Map<IncomingEvent, FramePlan[]>();
    for (const e of events) {
      const ids = debugIdsOf(e);
      const release = e.event.release && mapped.get(e.workspaceId)?.has(e.event.release) ? e.event.release : null;
      if (!ids && !release) continue;
      const frames = e.event.frames?.length ? e.event.frames : parseStack(e.event.stack);
      if (!frames.length) continue;
      plans.set(
        e,
        frames.map((frame) => {
          if (typeof frame.line !== 'number') return { frame };
          const path = bundlePath(frame.file);
          const plan: FramePlan = { frame };
          const debugId = ids?.get(frame.file) ?? (path ? ids?.get(path) : undefined);
          if (debugId) {
            plan.debug = debugKey(e.workspaceId, debugId);
            byDebugId.set(plan.debug, { workspaceId: e.workspaceId, debugId });
          }
          if (release && path) {
            plan.release = releaseKey(e.workspaceId, release, path);
            byRelease.set(plan.release, { workspaceId: e.workspaceId, release, path });
          }
          return plan;
        }),
      );
    }
    if (!byDebugId.size && !byRelease.size) return events;

    const consumers = await this.load(byDebugId, (todo) => this.fetchByDebugId(todo));
    // The release's map only for frames whose debug id found none.
    const fallback = new Map<string, Lookup>();
    for (const plan of [...plans.values()].flat()) {
      if (plan.release && !(plan.debug && consumers.has(plan.debug)))
        fallback.set(plan.release, byRelease.get(plan.release)!);
    }
    for (const [key, c] of await this.load(fallback, (todo) => this.fetchByRelease(todo))) consumers.set(key, c);
    if (!consumers.size) return events;

    return events.map((e) => {
      const plan = plans.get(e);
      if (!plan) return e;
      let count = 0;
      const out = plan.map(({ frame, debug, release }) => {
        const c = (debug && consumers.get(debug)) || (release && consumers.get(release));
        const m = c ? mapFrame(c, frame) : null;
        if (m) count++;
        return m ?? frame;
      });
      if (!count) return e;
      return { ...e, symbolicated: true, event: { ...e.event, frames: out } };
    });
  }

  /**
   * The parsed maps of `keys` (cached, or read with `fetch`, which answers the map texts by key);
   * keys without a map are remembered as misses and left out.
   */
  private async load(
    keys: Map<string, Lookup>,
    fetch: (todo: Array<[string, Lookup]>) => Promise<Map<string, string>>,
  ): Promise<Map<string, SourceMapConsumer>> {
    const todo = [...keys].filter(([key]) => !this.misses.get(key) && !this.consumers.get(key));
    if (todo.length) {
      const found = await fetch(todo);
      for (const [key, l] of todo) {
        const text = found.get(key);
        if (text === undefined) {
          this.misses.set(key, true);
          continue;
        }
        this.consumers.set(key, this.parse(text, l));
      }
    }
    const out = new Map<string, SourceMapConsumer>();
    for (const key of keys.keys()) {
      const c = await this.consumers.get(key);
      if (c) out.set(key, c);
    }
    return out;
  }

  private async parse(text: string, l: Lookup): Promise<SourceMapConsumer | null> {
    try {
      return await new SourceMapConsumer(JSON.parse(text) as ConstructorParameters<typeof SourceMapConsumer>[0]);
    } catch (err) {
      this.log.warn({ err, url_path: l.path, debug_id: l.debugId }, 'proactive: a stored source map cannot be read');
      return null;
    }
  }

  private async fetchByRelease(todo: Array<[string, Lookup]>): Promise<Map<string, string>> {
    const ls = todo.map(([, l]) => l);
    const rows = await this.db('source_maps')
      .whereIn('workspace_id', [...new Set(ls.map((l) => l.workspaceId))])
      .whereIn('release', [...new Set(ls.map((l) => l.release!))])
      .whereIn('url_path', [...new Set(ls.map((l) => l.path!))])
      .select<Array<{ workspace_id: string; release: string; url_path: string; map: string }>>(
        'workspace_id',
        'release',
        'url_path',
        'map',
      );
    return new Map(rows.map((r) => [releaseKey(r.workspace_id, r.release, r.url_path), r.map]));
  }

  /** A debug id uploaded with several releases (one build deployed twice) is served by the latest upload. */
  private async fetchByDebugId(todo: Array<[string, Lookup]>): Promise<Map<string, string>> {
    const ls = todo.map(([, l]) => l);
    const rows = await this.db('source_maps')
      .whereIn('workspace_id', [...new Set(ls.map((l) => l.workspaceId))])
      .whereNotNull('debug_id')
      .whereIn('debug_id', [...new Set(ls.map((l) => l.debugId!))])
      .orderBy('updated_at', 'desc')
      .select<Array<{ workspace_id: string; debug_id: string; map: string }>>('workspace_id', 'debug_id', 'map');
    const out = new Map<string, string>();
    for (const r of rows) {
      const key = debugKey(r.workspace_id, r.debug_id);
      if (!out.has(key)) out.set(key, r.map);
    }
    return out;
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
    const rows: Array<{ workspace_id: string; release: string }> = await this.db('source_maps')
      .whereIn('workspace_id', load)
      .distinct('workspace_id', 'release');
    for (const id of load) out.set(id, this.mapped.set(id, new Set()));
    for (const r of rows) out.get(r.workspace_id)!.add(r.release);
    return out;
  }
}
