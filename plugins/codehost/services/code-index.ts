/**
 * The code index of a connected repository's default branch: file tree, symbols, and chunks of
 * text with a Postgres tsvector. Built from a shallow git fetch (one round trip, whatever the
 * host's API limits) by the `index` consumer after connect and on push; searched by the builtin
 * agent and the MCP tools through the container entry `codeIndex`.
 */
import type { Knex } from 'knex';
import { isAdapterError } from '../../../core/contracts/index.js';
import { RepositoryModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';
import type { GitRemote } from './git-remote.js';
import type { RepositoryService } from './repositories.js';
import { findSymbols, languageOf, searchWords, type FoundSymbol } from './symbols.js';

export interface CodeSearchHit {
  path: string;
  line_start: number;
  line_end: number;
  symbol: string | null;
  snippet: string;
}

const SKIPPED =
  /(^|\/)(node_modules|vendor|dist|build|out|target|coverage|\.git|\.next|\.nuxt|__pycache__|\.venv|venv)\//;
const LOCKFILES =
  /(^|\/)(package-lock\.json|yarn\.lock|pnpm-lock\.yaml|Cargo\.lock|Gemfile\.lock|poetry\.lock|composer\.lock|go\.sum)$/;
const GENERATED = /\.(min\.js|min\.css|map|lock|snap)$/;
const BATCH = 200;

export class CodeIndexService {
  constructor(
    private readonly d: CodehostDeps,
    private readonly git: GitRemote,
    private readonly repositories: () => RepositoryService,
  ) {}

  /**
   * Rebuilds the index when the default branch moved (or `force`). Answers what happened; a
   * failure is recorded on the repository (index.status failed) and thrown only when the host
   * may answer later (the consumer retries).
   */
  async build(
    orgId: string,
    repositoryId: string,
    opts: { force?: boolean } = {},
  ): Promise<'built' | 'unchanged' | 'gone' | 'failed'> {
    const row = await RepositoryModel.query(this.d.db).forOrg(orgId).findById(repositoryId);
    if (!row) return 'gone';
    await this.setStatus(orgId, repositoryId, { index_status: 'building' });
    try {
      const ref = await this.repositories().ref(orgId, row);
      const access = await this.d.host.createGitAccess(ref, { write: false });
      const { gitDir, sha } = await this.git.fetchBranch(row.id, access, row.default_branch);
      if (!opts.force && sha === row.indexed_sha && row.index_status !== 'failed') {
        await this.setStatus(orgId, repositoryId, { index_status: 'ready' });
        return 'unchanged';
      }
      const { files, symbols, chunks } = await this.read(orgId, row.id, gitDir, sha);
      const stillThere = await this.d.db.transaction(async (trx) => {
        const current = await RepositoryModel.query(trx).forOrg(orgId).findById(repositoryId).forUpdate();
        if (!current) return false;
        for (const t of ['code_index_chunks', 'code_index_symbols', 'code_index_files'])
          await trx(t).where({ repository_id: repositoryId, org_id: orgId }).delete();
        if (files.length) await trx.batchInsert('code_index_files', files, 500);
        if (symbols.length) await trx.batchInsert('code_index_symbols', symbols, 500);
        if (chunks.length) await trx.batchInsert('code_index_chunks', chunks, 200);
        await RepositoryModel.query(trx)
          .forOrg(orgId)
          .patch({
            index_status: 'ready',
            indexed_sha: sha,
            indexed_at: new Date(),
            index_error: null,
            index_files: files.filter((f) => f.indexed).length,
            index_symbols: symbols.length,
          })
          .where('id', repositoryId);
        await this.d.outbox.add(
          trx,
          'codehost.repository_indexed',
          { repository_id: repositoryId, sha, files: files.length, symbols: symbols.length },
          { orgId },
        );
        return true;
      });
      return stillThere ? 'built' : 'gone';
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      this.d.log.warn({ err, repositoryId }, 'code index build failed');
      await this.setStatus(orgId, repositoryId, { index_status: 'failed', index_error: message.slice(0, 500) });
      if (isAdapterError(err) && err.retryable) throw err;
      return 'failed';
    }
  }

  private async setStatus(orgId: string, id: string, patch: Partial<RepositoryModel>): Promise<void> {
    await RepositoryModel.query(this.d.db).forOrg(orgId).patch(patch).where('id', id);
  }

  private async read(orgId: string, repositoryId: string, gitDir: string, sha: string) {
    const limits = this.d.options.index;
    const blobs = await this.git.listBlobs(gitDir, sha);
    const files: Array<{
      org_id: string;
      repository_id: string;
      path: string;
      sha: string;
      size: number;
      language: string | null;
      indexed: boolean;
    }> = [];
    const wanted: typeof blobs = [];
    for (const b of blobs) {
      const searchable =
        !SKIPPED.test(b.path) &&
        !LOCKFILES.test(b.path) &&
        !GENERATED.test(b.path) &&
        b.size <= limits.maxFileBytes &&
        wanted.length < limits.maxFiles;
      if (searchable) wanted.push(b);
      files.push({
        org_id: orgId,
        repository_id: repositoryId,
        path: b.path,
        sha: b.sha,
        size: b.size,
        language: languageOf(b.path),
        indexed: searchable,
      });
    }
    const symbols: Array<{
      org_id: string;
      repository_id: string;
      path: string;
      name: string;
      kind: string;
      line: number;
    }> = [];
    const chunks: Array<{
      org_id: string;
      repository_id: string;
      path: string;
      line_start: number;
      line_end: number;
      symbol: string | null;
      content: string;
      search_text: string;
    }> = [];
    const notText = new Set<string>();
    for (let i = 0; i < wanted.length; i += BATCH) {
      const batch = wanted.slice(i, i + BATCH);
      const contents = await this.git.readBlobs(
        gitDir,
        batch.map((b) => b.sha),
      );
      for (const b of batch) {
        const buf = contents.get(b.sha);
        if (!buf || buf.subarray(0, 8000).includes(0)) {
          notText.add(b.path);
          continue;
        }
        const text = buf.toString('utf8').replaceAll('\u0000', '');
        const found = findSymbols(languageOf(b.path), text);
        for (const s of found) symbols.push({ org_id: orgId, repository_id: repositoryId, path: b.path, ...s });
        chunks.push(...this.chunk(orgId, repositoryId, b.path, text, found));
      }
    }
    for (const f of files) if (notText.has(f.path)) f.indexed = false;
    return { files, symbols, chunks };
  }

  private chunk(orgId: string, repositoryId: string, path: string, text: string, symbols: FoundSymbol[]) {
    const size = this.d.options.index.chunkLines;
    const lines = text.split('\n');
    const out = [];
    const pathWords = path.replace(/[^A-Za-z0-9]+/g, ' ');
    for (let start = 0; start < lines.length; start += size) {
      const end = Math.min(lines.length, start + size);
      const content = lines.slice(start, end).join('\n');
      if (!content.trim()) continue;
      const inside = symbols.filter((s) => s.line >= start + 1 && s.line <= end);
      const before = symbols.filter((s) => s.line < start + 1).pop();
      const symbol = (inside[0] ?? before)?.name ?? null;
      out.push({
        org_id: orgId,
        repository_id: repositoryId,
        path,
        line_start: start + 1,
        line_end: end,
        symbol,
        content,
        search_text: `${pathWords} ${content} ${searchWords(`${path} ${content}`)}`.slice(0, 200_000),
      });
    }
    return out;
  }

  /**
   * Full-text search of a repository's default branch: symbol definitions named like the query
   * first, then text hits by rank. `[{path, line_start, line_end, symbol, snippet}]`.
   *
   * @example await codeIndex.search(orgId, repositoryId, 'login error')
   */
  async search(
    orgId: string,
    repositoryId: string,
    query: string,
    opts: { limit?: number; trx?: Knex } = {},
  ): Promise<CodeSearchHit[]> {
    const db = opts.trx ?? this.d.db;
    const limit = Math.min(Math.max(opts.limit ?? 20, 1), 100);
    const q = query.trim().slice(0, 500);
    if (!q) return [];
    const hits: CodeSearchHit[] = [];
    const seen = new Set<string>();
    if (/^[A-Za-z_$][\w$.]*$/.test(q)) {
      const name = q.split('.').pop()!.toLowerCase();
      const defs = (await db('code_index_symbols')
        .where({ org_id: orgId, repository_id: repositoryId })
        .whereRaw('lower(name) = ?', [name])
        .orderBy('path')
        .limit(limit)) as Array<{ path: string; name: string; line: number }>;
      for (const s of defs) {
        const chunk = (await db('code_index_chunks')
          .where({ org_id: orgId, repository_id: repositoryId, path: s.path })
          .where('line_start', '<=', s.line)
          .where('line_end', '>=', s.line)
          .first()) as { line_start: number; content: string } | undefined;
        const lines = chunk?.content.split('\n') ?? [];
        const at = chunk ? s.line - chunk.line_start : 0;
        const from = Math.max(0, at);
        const to = Math.min(lines.length, at + 6);
        hits.push({
          path: s.path,
          line_start: (chunk?.line_start ?? s.line) + from,
          line_end: (chunk?.line_start ?? s.line) + Math.max(from, to - 1),
          symbol: s.name,
          snippet: lines.slice(from, to).join('\n'),
        });
        seen.add(`${s.path}:${chunk?.line_start ?? s.line}`);
      }
    }
    if (hits.length >= limit) return hits.slice(0, limit);
    const words = `${q} ${searchWords(q)}`.trim();
    const rows = (await db('code_index_chunks')
      .select('path', 'line_start', 'line_end', 'symbol', 'content')
      .select(db.raw("ts_rank(tsv, websearch_to_tsquery('simple', ?)) as rank", [q]))
      .where({ org_id: orgId, repository_id: repositoryId })
      .whereRaw("tsv @@ websearch_to_tsquery('simple', ?)", [q])
      .orderBy('rank', 'desc')
      .orderBy('path')
      .orderBy('line_start')
      .limit(limit * 2)) as Array<{
      path: string;
      line_start: number;
      line_end: number;
      symbol: string | null;
      content: string;
    }>;
    const terms = words
      .toLowerCase()
      .split(/[^a-z0-9_]+/)
      .filter((w) => w.length > 1 && !['or', 'and', 'not'].includes(w));
    for (const r of rows) {
      if (hits.length >= limit) break;
      if (seen.has(`${r.path}:${r.line_start}`)) continue;
      const hit = snippetOf(r, terms);
      // The symbol around the matched line: the last one defined at or before it in the file.
      const around: { name: string } | undefined = await db('code_index_symbols')
        .where({ org_id: orgId, repository_id: repositoryId, path: r.path })
        .where('line', '<=', hit.match_line)
        .orderBy('line', 'desc')
        .first('name');
      hits.push({
        path: hit.path,
        line_start: hit.line_start,
        line_end: hit.line_end,
        symbol: around?.name ?? r.symbol,
        snippet: hit.snippet,
      });
    }
    return hits;
  }

  /** The indexed file tree. */
  async tree(
    orgId: string,
    repositoryId: string,
  ): Promise<Array<{ path: string; size: number; language: string | null; indexed: boolean }>> {
    return this.d
      .db('code_index_files')
      .where({ org_id: orgId, repository_id: repositoryId })
      .orderBy('path')
      .select('path', 'size', 'language', 'indexed');
  }

  /** Symbols, optionally those whose name starts with `prefix`. */
  async symbols(
    orgId: string,
    repositoryId: string,
    prefix?: string,
  ): Promise<Array<{ path: string; name: string; kind: string; line: number }>> {
    const q = this.d.db('code_index_symbols').where({ org_id: orgId, repository_id: repositoryId });
    if (prefix) q.whereRaw('lower(name) like ?', [`${prefix.toLowerCase().replace(/[%_\\]/g, '\\$&')}%`]);
    return q.orderBy('path').orderBy('line').limit(1000).select('path', 'name', 'kind', 'line');
  }
}

function snippetOf(
  r: { path: string; line_start: number; line_end: number; symbol: string | null; content: string },
  terms: string[],
): CodeSearchHit & { match_line: number } {
  const lines = r.content.split('\n');
  let at = lines.findIndex((l) => {
    const low = l.toLowerCase();
    return terms.some((t) => low.includes(t));
  });
  if (at < 0) at = 0;
  const from = Math.max(0, at - 2);
  const to = Math.min(lines.length, at + 3);
  return {
    path: r.path,
    line_start: r.line_start + from,
    line_end: r.line_start + to - 1,
    symbol: r.symbol,
    snippet: lines.slice(from, to).join('\n').slice(0, 2000),
    match_line: r.line_start + at,
  };
}
