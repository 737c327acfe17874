import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { conflict, httpError } from '../../../core/http/errors.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import type { PrivacyDeps } from './deps.js';
import { systemActor, type SignedInActor } from '../../../core/contracts/index.js';
import { byTable, columnsOf } from './schema.js';
import { tarEntry, TAR_END } from './tar.js';
import type { MailerPort } from '../../../core/contracts/mail.js';

/** Columns never exported: credentials and their hashes, sealed secrets. */
const SECRET_COLUMN = /(password|secret|token|_hash$|encrypted|sealed|^key$|_key$)/i;
/** Tables never exported: delivery plumbing, other exports. */
const SKIP_TABLES = new Set([
  'privacy_exports',
  'audit_stream_queue',
  'outbox',
  'inbox',
  'dead_letters',
  'sessions',
  'rate_limits',
]);
const PAGE = 1000;

export interface ExportOut {
  id: string;
  status: 'pending' | 'ready' | 'failed' | 'expired';
  created_at: string;
}

/**
 * Organization exports: the request (owners) queues `privacy.export_requested`; a worker writes a
 * .tar.gz with one JSON Lines file per table (the organization's rows; credentials left out),
 * and emails the requester a link that works for `exportLinkDays`.
 */
export class ExportService {
  constructor(
    private readonly d: PrivacyDeps,
    private readonly mailer: () => MailerPort | null,
    private readonly dir: string,
    private readonly publicBaseUrl: string,
  ) {}

  static directory(dataDir: string): string {
    return dataDir === ':memory:' ? join(tmpdir(), 'patchwell-privacy-exports') : resolve(dataDir, 'privacy-exports');
  }

  async request(actor: SignedInActor, locale: string): Promise<ExportOut> {
    if (!actor.email)
      throw httpError(422, 'no_email', 'The export link is emailed: sign in as a member with an email address');
    const { db } = this.d;
    return db.transaction(async (trx) => {
      // A build that never finished (its message dead-lettered) must not block the next request.
      await trx('privacy_exports')
        .where({ org_id: actor.orgId, status: 'pending' })
        .where('created_at', '<', new Date(this.d.clock().getTime() - 3_600_000))
        .update({ status: 'failed', error: 'not built within an hour' });
      const busy: { id: string } | undefined = await trx('privacy_exports')
        .where({ org_id: actor.orgId, status: 'pending' })
        .first('id');
      if (busy)
        throw conflict('export_in_progress', 'An export is being built; its link will be emailed', {
          export_id: busy.id,
        });
      const id = newId('exp');
      const now = this.d.clock();
      await trx('privacy_exports').insert({
        id,
        org_id: actor.orgId,
        requested_by_user_id: actor.userId,
        email: actor.email,
        locale: locale === 'it' ? 'it' : 'en',
        status: 'pending',
        created_at: now,
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'privacy.export_requested',
        target: { type: 'export', id },
      });
      await this.d.outbox.add(
        trx,
        'privacy.export_requested',
        { org_id: actor.orgId, export_id: id },
        { orgId: actor.orgId },
      );
      return { id, status: 'pending' as const, created_at: now.toISOString() };
    });
  }

  /** The worker's part (idempotent: an export already built is left alone), in the consumer's transaction. */
  async build(exportId: string, db: Knex = this.d.db): Promise<void> {
    const row = (await db('privacy_exports').where({ id: exportId }).first()) as
      { id: string; org_id: string; status: string; email: string; locale: 'en' | 'it' } | undefined;
    if (!row || row.status !== 'pending') return;
    const parts: Buffer[] = [];
    const manifest: Record<string, number> = {};
    const cols = byTable(await columnsOf(db));
    for (const [table, columns] of [...cols].sort(([a], [b]) => a.localeCompare(b))) {
      if (SKIP_TABLES.has(table) || !columns.some((c) => c.column === 'org_id')) continue;
      const keep = columns.filter((c) => !SECRET_COLUMN.test(c.column)).map((c) => c.column);
      const lines: string[] = [];
      const order = columns.some((c) => c.column === 'id') ? 'id' : keep[0];
      for (let offsetKey: unknown = null; ;) {
        const q = db(table).where('org_id', row.org_id).orderBy(order).limit(PAGE).select(keep);
        if (offsetKey !== null) q.where(order, '>', offsetKey as Knex.Value);
        const rows = (await q) as Array<Record<string, unknown>>;
        for (const r of rows)
          lines.push(
            JSON.stringify(r, (_k, v: unknown) =>
              v && typeof v === 'object' && (v as { type?: string }).type === 'Buffer'
                ? Buffer.from((v as { data: number[] }).data).toString('base64')
                : v,
            ),
          );
        if (rows.length < PAGE || order !== 'id') break;
        offsetKey = rows[rows.length - 1][order];
      }
      if (!lines.length) continue;
      manifest[table] = lines.length;
      parts.push(tarEntry(`${table}.jsonl`, Buffer.from(`${lines.join('\n')}\n`)));
    }
    const now = this.d.clock();
    parts.unshift(
      tarEntry(
        'manifest.json',
        Buffer.from(
          JSON.stringify(
            { organization_id: row.org_id, export_id: row.id, created_at: now.toISOString(), tables: manifest },
            null,
            2,
          ),
        ),
      ),
    );
    const archive = gzipSync(Buffer.concat([...parts, TAR_END]));
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, `${row.id}.tar.gz`);
    writeFileSync(file, archive, { mode: 0o600 });
    const { token, hash } = newToken('pwx');
    const expiresAt = new Date(now.getTime() + this.d.options.exportLinkDays * 86_400_000);
    const org: { name: string } | undefined = await db('organizations').where({ id: row.org_id }).first('name');
    await db.transaction(async (trx) => {
      await trx('privacy_exports')
        .where({ id: row.id })
        .update({
          status: 'ready',
          file_path: file,
          size_bytes: archive.length,
          sha256: createHash('sha256').update(archive).digest('hex'),
          download_token_hash: hash,
          expires_at: expiresAt,
          completed_at: now,
        });
      const mailer = this.mailer();
      if (!mailer) throw new Error('the mail plugin is needed to send the export link');
      await mailer.enqueue(trx, {
        orgId: row.org_id,
        template: 'privacy.export_ready',
        locale: row.locale,
        to: row.email,
        data: {
          org_name: org?.name ?? '',
          url: `${this.publicBaseUrl}/downloads/privacy-exports/${token}`,
          expires_at: expiresAt.toISOString().slice(0, 16).replace('T', ' ') + ' UTC',
        },
      });
    });
  }

  /** The archive a download token opens, or 404 (unknown, expired, purged). */
  async open(token: string): Promise<{ file: string; id: string }> {
    const row: { id: string; file_path: string; expires_at: Date; org_id: string } | undefined = await this.d
      .db('privacy_exports')
      .where({ download_token_hash: hashToken(token), status: 'ready' })
      .first('id', 'file_path', 'expires_at', 'org_id');
    if (!row || new Date(row.expires_at) <= this.d.clock())
      throw httpError(404, 'not_found', 'This link is unknown or has expired');
    try {
      statSync(row.file_path);
    } catch {
      throw httpError(404, 'not_found', 'This link is unknown or has expired');
    }
    await this.d.audit.record(this.d.db, {
      orgId: row.org_id,
      actor: systemActor('privacy', row.org_id),
      action: 'privacy.export_downloaded',
      target: { type: 'export', id: row.id },
    });
    return { file: row.file_path, id: row.id };
  }

  /** Deletes archives whose link expired. */
  async expire(): Promise<number> {
    const rows: Array<{ id: string; file_path: string }> = await this.d
      .db('privacy_exports')
      .where({ status: 'ready' })
      .where('expires_at', '<=', this.d.clock())
      .select('id', 'file_path');
    for (const r of rows) {
      rmSync(r.file_path, { force: true });
      await this.d
        .db('privacy_exports')
        .where({ id: r.id })
        .update({ status: 'expired', file_path: null, download_token_hash: null });
    }
    return rows.length;
  }
}
