import type { Knex } from 'knex';
import type { Logger } from 'pino';
import { SourceMapConsumer } from 'source-map';
import type { StackFrame } from '../../../core/contracts/index.js';
import { TtlMap } from '../../../core/data/ttl-map.js';
import type { StoredFrame } from '../models.js';
import { ConsumerCache } from './consumer-cache.js';
import type { IncomingEvent } from './group-writer.js';
import { parseStack } from './grouping.js';
import { bundlePath } from './source-map-parse.js';
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
  delete out.in_app; // decided again on the original file (a vendored source becomes not in-app)
  if (typeof f.in_app === 'boolean') out.in_app = f.in_app;
  return out;
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
        if (path)
          needed.set(`${e.workspaceId}\n${e.event.release}\n${path}`, {
            workspaceId: e.workspaceId,
            release: e.event.release,
            path,
          });
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
        .select('workspace_id', 'release', 'url_path', 'map')) as Array<{
        workspace_id: string;
        release: string;
        url_path: string;
        map: string;
      }>;
      const found = new Map(rows.map((r) => [`${r.workspace_id}\n${r.release}\n${r.url_path}`, r.map]));
      for (const l of load) {
        const text = found.get(l.key);
        if (text === undefined) {
          this.misses.set(l.key, true);
          continue;
        }
        this.consumers.set(
          l.key,
          (async () => {
            try {
              return await new SourceMapConsumer(
                JSON.parse(text) as ConstructorParameters<typeof SourceMapConsumer>[0],
              );
            } catch (err) {
              this.log.warn({ err, url_path: l.path }, 'proactive: a stored source map cannot be read');
              return null;
            }
          })(),
        );
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
    const rows = (await this.db('source_maps')
      .whereIn('workspace_id', load)
      .distinct('workspace_id', 'release')) as Array<{ workspace_id: string; release: string }>;
    for (const id of load) out.set(id, this.mapped.set(id, new Set()));
    for (const r of rows) out.get(r.workspace_id)!.add(r.release);
    return out;
  }
}
