import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { RequestDetails } from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { conflict, httpError } from '../../../core/http/errors.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

export interface PublicDeps {
  db: () => Knex;
  outbox: () => Outbox;
  rateLimiter: () => RateLimiter;
  /** How long the landing counters are kept before they are computed again. */
  statsTtlMs: number;
}

export interface SponsorshipInput {
  repository_url: string;
  name: string;
  email: string;
  project_description?: string | null;
  monthly_issues?: number | null;
  locale?: 'en' | 'it';
}

/** `https://host/owner/name` (a trailing `.git` or slash allowed) → `host/owner/name`, lower case; null otherwise. */
export function repositoryKey(url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== 'https:' || u.username || u.password || u.search || u.hash) return null;
  const parts = u.pathname
    .replace(/\/+$/, '')
    .replace(/\.git$/, '')
    .split('/')
    .filter(Boolean);
  if (parts.length !== 2 || !parts.every((p) => /^[A-Za-z0-9_.-]{1,100}$/.test(p))) return null;
  return `${u.hostname.toLowerCase()}/${parts[0].toLowerCase()}/${parts[1].toLowerCase()}`;
}

/**
 * The public section's data operations: landing-page counters over every organization (demo
 * tickets excluded) and sponsorship requests from open-source projects, kept for review by hand.
 */
export class PublicService {
  private cache: { at: number; value: Record<string, unknown> } | null = null;

  constructor(private readonly d: PublicDeps) {}

  async stats(): Promise<Record<string, unknown>> {
    if (this.cache && Date.now() - this.cache.at < this.d.statsTtlMs) return this.cache.value;
    const db = this.d.db();
    const resolvedAt = 'coalesce(released_at, closed_at)';
    const row = (await db('tickets')
      .where('is_demo', false)
      .whereIn('state', ['closed', 'customer_notified'])
      .whereRaw(`${resolvedAt} is not null`)
      .select(
        db.raw('count(*) as resolved'),
        db.raw(
          `percentile_cont(0.5) within group (order by extract(epoch from (${resolvedAt} - created_at)) / 60.0) as median`,
        ),
      )
      .first()) as { resolved: string | number; median: unknown };
    // A release is one version of one workspace that resolved tickets (the fix loop's tag and notice).
    const releases = (await db
      .from(
        db('tickets')
          .where('is_demo', false)
          .whereNotNull('resolved_version')
          .whereNotNull('released_at')
          .distinct('workspace_id', 'resolved_version')
          .as('r'),
      )
      .count('* as n')
      .first()) as { n: string | number };
    const value = {
      resolved_tickets: Number(row.resolved ?? 0),
      releases: Number(releases.n ?? 0),
      median_resolution_minutes:
        row.median === null || row.median === undefined ? null : Math.round(Number(row.median)),
      updated_at: new Date().toISOString(),
    };
    this.cache = { at: Date.now(), value };
    return value;
  }

  async requestSponsorship(input: SponsorshipInput, from: RequestDetails): Promise<Record<string, unknown>> {
    const key = repositoryKey(input.repository_url);
    if (!key) {
      throw httpError(
        400,
        'invalid_request',
        'repository_url must be the https address of a public repository, e.g. https://github.com/owner/name',
        {
          errors: [{ path: 'payload.repository_url', message: 'must be https://<host>/<owner>/<name>' }],
        },
      );
    }
    const ipHash = createHash('sha256')
      .update(`oss-sponsorship:${from.ip ?? 'unknown'}`)
      .digest('hex')
      .slice(0, 32);
    await this.d
      .rateLimiter()
      .consume(
        `public:oss-sponsorship:${ipHash}`,
        5,
        60 * 60_000,
        'Too many sponsorship requests from this address; try again later',
      );
    const db = this.d.db();
    const open = await db('oss_sponsorship_requests')
      .where({ repository_key: key, status: 'received' })
      .first<{ id: string } | undefined>();
    if (open)
      throw conflict('request_pending', 'A sponsorship request for this repository is already waiting for review', {
        request_id: open.id,
      });
    const now = new Date();
    const row = {
      id: newId('oss'),
      repository_url: input.repository_url,
      repository_key: key,
      name: input.name.trim(),
      email: input.email.toLowerCase(),
      project_description: input.project_description ?? null,
      monthly_issues: input.monthly_issues ?? null,
      locale: input.locale ?? 'en',
      status: 'received',
      ip_hash: ipHash,
      created_at: now,
      updated_at: now,
    };
    try {
      await db.transaction(async (trx) => {
        await trx('oss_sponsorship_requests').insert(row);
        await this.d.outbox().add(trx, 'public.oss_sponsorship_requested', { request_id: row.id, repository: key });
      });
    } catch (err) {
      if (isUniqueViolation(err))
        throw conflict('request_pending', 'A sponsorship request for this repository is already waiting for review');
      throw err;
    }
    return { id: row.id, repository_url: row.repository_url, status: 'received', created_at: now.toISOString() };
  }
}
