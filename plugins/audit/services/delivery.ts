import { createHash } from 'node:crypto';
import type { AuditEntry } from '../../../core/audit/audit-writer.js';
import { createSafeFetch } from '../../../core/security/safe-fetch.js';
import { orgHasFeature, type AuditDeps } from './deps.js';
import { entryOut } from './entries.js';
import { CloudWatchSink, HttpsSink, type AuditBatch, type AuditSink, type SinkResult } from './sinks.js';
import { cloudwatchSecretContext, secretContext, type StreamRow } from './stream-store.js';

/** Most batches one stream sends in one pass (the next pass continues). */
const BATCHES_PER_PASS = 20;

/**
 * Delivers the queue of each stream in order, one batch at a time: a batch leaves the queue only
 * once the destination accepted it, so an outage delays entries and loses none. A lease on the
 * stream row keeps two deliverers (scheduler fail-over, a manual run) from sending the same
 * entries at once; a failed batch waits the back-off and is sent again with the same batch id.
 */
export class StreamDelivery {
  constructor(private readonly d: AuditDeps) {}

  /** One pass over every stream with entries due. Answers how many entries were delivered. */
  async deliverDue(): Promise<number> {
    const now = this.d.clock();
    const due: Array<{ id: string }> = await this.d
      .db('audit_streams as s')
      .where('s.enabled', true)
      .where((w) => void w.whereNull('s.next_attempt_at').orWhere('s.next_attempt_at', '<=', now))
      .whereExists((q) => void q.select(1).from('audit_stream_queue as q').whereRaw('q.stream_id = s.id'))
      .select('s.id');
    let delivered = 0;
    for (const { id } of due) delivered += await this.deliverStream(id);
    return delivered;
  }

  /** Signing secrets of a stream: the current one, then the previous one while it is honoured. */
  secretsOf(row: StreamRow): string[] {
    const out = [this.d.secretBox.decrypt(row.secret_encrypted, secretContext(row.id))];
    if (
      row.previous_secret_encrypted &&
      row.previous_secret_expires_at &&
      new Date(row.previous_secret_expires_at) > this.d.clock()
    ) {
      out.push(this.d.secretBox.decrypt(row.previous_secret_encrypted, secretContext(row.id)));
    }
    return out;
  }

  sinkOf(row: StreamRow): AuditSink & { destroy?(): void } {
    const o = this.d.options.stream;
    if (row.kind === 'cloudwatch') {
      return new CloudWatchSink({
        region: row.cw_region!,
        logGroup: row.cw_log_group!,
        logStream: row.cw_log_stream!,
        accessKeyId: row.cw_access_key_id!,
        secretAccessKey: this.d.secretBox.decrypt(row.cw_secret_encrypted!, cloudwatchSecretContext(row.id)),
        endpoint: o.cloudwatchEndpoint,
        timeoutMs: o.timeoutMs,
      });
    }
    const fetch = createSafeFetch({
      requireHttps: true,
      allowLoopback: this.d.allowLoopbackFetch,
      timeoutMs: o.timeoutMs,
      maxBytes: 64 * 1024,
      ...(o.trustedCa ? { ca: o.trustedCa } : {}),
    });
    return new HttpsSink(row.url!, fetch, () => this.d.clock());
  }

  /** Sends one batch now (the test batch), outside the queue. */
  async send(row: StreamRow, batch: AuditBatch): Promise<SinkResult> {
    const sink = this.sinkOf(row);
    try {
      return await sink.deliver(batch, this.secretsOf(row));
    } finally {
      sink.destroy?.();
    }
  }

  private async deliverStream(streamId: string): Promise<number> {
    const { db } = this.d;
    const o = this.d.options.stream;
    const now = this.d.clock();
    const leased = (await db('audit_streams')
      .where({ id: streamId, enabled: true })
      .where((w) => void w.whereNull('lease_until').orWhere('lease_until', '<', now))
      .update({ lease_until: new Date(now.getTime() + o.leaseMs) })
      .returning('*')) as StreamRow[];
    const row = leased[0];
    if (!row) return 0;
    let delivered = 0;
    let sink: (AuditSink & { destroy?(): void }) | null = null;
    try {
      if (!(await orgHasFeature(this.d, db, row.org_id, 'audit_stream'))) {
        await db('audit_streams').where({ id: row.id }).update({
          last_error: 'feature_not_in_plan: the plan no longer includes audit log streaming; entries are kept',
        });
        return 0;
      }
      sink = this.sinkOf(row);
      const secrets = this.secretsOf(row);
      for (let i = 0; i < BATCHES_PER_PASS; i++) {
        const rows: Array<AuditEntry & { seq: string | number; entry_id: string }> = await db('audit_stream_queue as q')
          .leftJoin('audit_entries as e', 'e.id', 'q.entry_id')
          .where('q.stream_id', row.id)
          .orderBy('q.seq', 'asc')
          .limit(o.batchSize)
          .select('q.seq', 'q.entry_id', 'e.*');
        if (rows.length === 0) break;
        // Entries erased since they were queued (privacy purge) leave the queue unsent.
        const gone = rows.filter((r) => r.id == null).map((r) => r.seq);
        const present = rows.filter((r) => r.id != null);
        if (gone.length) await db('audit_stream_queue').whereIn('seq', gone).delete();
        if (present.length === 0) continue;
        const entries = present.map((r) => entryOut(r));
        const batch: AuditBatch = {
          batch_id: `ab_${createHash('sha256')
            .update(row.id)
            .update(entries.map((e) => e.id).join(','))
            .digest('hex')
            .slice(0, 32)}`,
          stream_id: row.id,
          org_id: row.org_id,
          test: false,
          sent_at: this.d.clock().toISOString(),
          entries,
        };
        const result = await sink.deliver(batch, secrets);
        const at = this.d.clock();
        if (!result.ok) {
          const failures = row.consecutive_failures + 1;
          const wait = o.backoffMs[Math.min(failures - 1, o.backoffMs.length - 1)];
          await db('audit_streams')
            .where({ id: row.id })
            .update({
              consecutive_failures: failures,
              last_error: result.error,
              last_attempt_at: at,
              next_attempt_at: new Date(at.getTime() + wait),
            });
          break;
        }
        await db.transaction(async (trx) => {
          await trx('audit_stream_queue')
            .whereIn(
              'seq',
              present.map((r) => r.seq),
            )
            .delete();
          await trx('audit_streams')
            .where({ id: row.id })
            .update({
              delivered_count: trx.raw('delivered_count + ?', [present.length]),
              last_delivered_entry_id: entries[entries.length - 1].id,
              last_delivered_at: at,
              last_attempt_at: at,
              last_error: null,
              consecutive_failures: 0,
              next_attempt_at: null,
            });
        });
        row.consecutive_failures = 0;
        delivered += present.length;
        if (present.length < o.batchSize) break;
      }
      return delivered;
    } finally {
      sink?.destroy?.();
      await db('audit_streams').where({ id: row.id }).update({ lease_until: null });
    }
  }
}
