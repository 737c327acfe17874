import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import { newId } from '../../../core/data/ids.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import type { WorkspaceOpener } from './connectors.js';
import { bundlePath, checkMap } from './source-map-parse.js';
import type { Symbolicator } from './symbolicator.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { iso } from '../../../core/http/times.js';

/**
 * Source maps of a workspace's releases (section sourcemaps): upload, list, delete. The frames of
 * error events are mapped with them by symbolicator.ts. docs/proactive.md ("Source maps") explains the design.
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

const META = [
  'id',
  'org_id',
  'workspace_id',
  'release',
  'url_path',
  'size',
  'sha256',
  'sources_count',
  'created_at',
  'updated_at',
] as const;
const ADMIN = new Set(['owner', 'admin']);

/** A stored map as the API answers it (without the map text). */
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

  private requireAdmin(a: SignedInActor): void {
    if (!ADMIN.has(a.principal.role)) throw httpError(403, 'forbidden', 'Only owners and admins manage source maps');
  }

  async upload(
    a: SignedInActor,
    input: { workspace_id: string; release: string; files: Array<{ url_path: string; map: string }> },
  ) {
    this.requireAdmin(a);
    const ws = await this.d.workspaces().open(a.principal, input.workspace_id);
    const issues: MapIssue[] = [];
    const seen = new Set<string>();
    const checked: Array<{
      url_path: string;
      map: string;
      size: number;
      sha256: string;
      sources: number;
      debugId: string | null;
    }> = [];
    for (const [index, f] of input.files.entries()) {
      const path = bundlePath(f.url_path);
      const size = Buffer.byteLength(f.map, 'utf8');
      if (size > this.d.limits.maxMapBytes) {
        throw httpError(
          413,
          'source_map_too_large',
          `The map for ${f.url_path} is larger than ${this.d.limits.maxMapBytes} bytes`,
          { index, url_path: f.url_path, size, limit: this.d.limits.maxMapBytes },
        );
      }
      if (!path) {
        issues.push({
          index,
          url_path: f.url_path,
          code: 'invalid_url_path',
          message: "url_path must be the bundle's URL or its path (starting with /)",
        });
        continue;
      }
      if (seen.has(path)) {
        issues.push({
          index,
          url_path: f.url_path,
          code: 'duplicate_url_path',
          message: 'Two files of this upload have the same url_path',
        });
        continue;
      }
      seen.add(path);
      const check = await checkMap(f.map);
      if (check.code !== 'ok') {
        issues.push({ index, url_path: f.url_path, code: check.code, message: check.message });
        continue;
      }
      checked.push({
        url_path: path,
        map: f.map,
        size,
        sha256: createHash('sha256').update(f.map).digest('hex'),
        sources: check.sources ?? 0,
        debugId: check.debugId ?? null,
      });
    }
    if (issues.length)
      throw httpError(422, 'invalid_source_map', 'Some source maps cannot be used; nothing was stored', {
        errors: issues,
      });

    const now = new Date();
    const rows = await this.d.db.transaction(async (trx) => {
      const before = new Set(
        (await trx('source_maps')
          .where({ org_id: a.principal.orgId, workspace_id: ws.id, release: input.release })
          .whereIn(
            'url_path',
            checked.map((c) => c.url_path),
          )
          .pluck('url_path')) as string[],
      );
      const out: SourceMapRow[] = await trx('source_maps')
        .insert(
          checked.map((c) => ({
            id: newId('sm'),
            org_id: a.principal.orgId,
            workspace_id: ws.id,
            release: input.release,
            url_path: c.url_path,
            map: c.map,
            size: c.size,
            sha256: c.sha256,
            sources_count: c.sources,
            debug_id: c.debugId,
            uploaded_by: a.principal.userId ?? a.principal.tokenId ?? null,
            created_at: now,
            updated_at: now,
          })),
        )
        .onConflict(['workspace_id', 'release', 'url_path'])
        .merge(['map', 'size', 'sha256', 'sources_count', 'debug_id', 'uploaded_by', 'updated_at'])
        .returning([...META]);
      await this.d.audit.record(trx, {
        actor: a,
        action: 'sourcemap.uploaded',
        target: { type: 'release', id: input.release },
        workspaceId: ws.id,
        metadata: {
          release: input.release,
          files: checked.map((c) => ({
            url_path: c.url_path,
            size: c.size,
            sha256: c.sha256,
            debug_id: c.debugId,
            replaced: before.has(c.url_path),
          })),
        },
      });
      return out;
    });
    this.d.symbolicator.forget(ws.id, input.release);
    return {
      workspace_id: ws.id,
      release: input.release,
      files: rows.sort((x, y) => (x.url_path < y.url_path ? -1 : 1)).map(serializeSourceMap),
    };
  }

  async list(
    a: SignedInActor,
    q: { workspace_id: string; release: string; cursor?: string; limit?: number },
  ): Promise<Page<ReturnType<typeof serializeSourceMap>>> {
    const ws = await this.d.workspaces().open(a.principal, q.workspace_id);
    const query = this.d
      .db('source_maps')
      .where({ org_id: a.principal.orgId, workspace_id: ws.id, release: q.release })
      .select([...META]);
    const page = await paginate<Record<string, unknown>>(
      query,
      [
        { column: 'url_path', direction: 'asc', type: 'string' },
        { column: 'id', direction: 'asc', type: 'string' },
      ],
      q,
    );
    return { items: (page.items as unknown as SourceMapRow[]).map(serializeSourceMap), next_cursor: page.next_cursor };
  }

  async releases(a: SignedInActor, q: { workspace_id: string; cursor?: string; limit?: number }) {
    const ws = await this.d.workspaces().open(a.principal, q.workspace_id);
    const db = this.d.db;
    const inner = db('source_maps')
      .where({ org_id: a.principal.orgId, workspace_id: ws.id })
      .groupBy('release')
      .select('release')
      .count({ files: '*' })
      .sum({ size: 'size' })
      .max({ last_uploaded_at: 'updated_at' })
      .min({ first_uploaded_at: 'created_at' });
    const query = db.from(inner.as('r')).select('*');
    const page = await paginate<Record<string, unknown>>(
      query,
      [
        { column: 'r.last_uploaded_at', direction: 'desc', type: 'date', field: 'last_uploaded_at' },
        { column: 'r.release', direction: 'desc', type: 'string', field: 'release' },
      ],
      q,
    );
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

  async remove(a: SignedInActor, q: { workspace_id: string; release: string }) {
    this.requireAdmin(a);
    const ws = await this.d.workspaces().open(a.principal, q.workspace_id);
    const deleted = await this.d.db.transaction(async (trx) => {
      const gone: Array<{ url_path: string; size: number }> = await trx('source_maps')
        .where({ org_id: a.principal.orgId, workspace_id: ws.id, release: q.release })
        .delete()
        .returning(['url_path', 'size']);
      if (!gone.length) throw notFound('This release has no source maps');
      await this.d.audit.record(trx, {
        actor: a,
        action: 'sourcemap.deleted',
        target: { type: 'release', id: q.release },
        workspaceId: ws.id,
        metadata: { release: q.release, files: gone.map((g) => g.url_path).sort() },
      });
      return gone.length;
    });
    this.d.symbolicator.forget(ws.id, q.release);
    return { workspace_id: ws.id, release: q.release, deleted };
  }
}
