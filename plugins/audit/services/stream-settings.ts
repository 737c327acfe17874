import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { newId } from '../../../core/data/ids.js';
import { httpError, notFound } from '../../../core/http/errors.js';
import { blockedReason } from '../../../core/security/safe-fetch.js';
import { last4 } from '../../../core/security/secret-box.js';
import { requireFeature, type AuditDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import type { StreamDelivery } from './delivery.js';
import { SIGNATURE_HEADER, type SinkResult } from './sinks.js';
import {
  cloudwatchSecretContext,
  pendingCount,
  secretContext,
  streamOf,
  streamOut,
  type AuditStreamOut,
  type StreamRow,
} from './stream-store.js';

export interface StreamInput {
  kind: 'https' | 'cloudwatch';
  enabled?: boolean;
  url?: string;
  cloudwatch?: {
    region: string;
    log_group: string;
    log_stream: string;
    access_key_id: string;
    secret_access_key?: string;
  };
}

export interface TestResult extends SinkResult {
  batch_id: string;
}

const newSigningSecret = () => `pwss_${randomBytes(32).toString('base64url')}`;
const invalid = (path: string, message: string) =>
  httpError(400, 'invalid_request', message, { errors: [{ path, message }] });

/** The organization's stream to an external log system: settings, secret, test batch. */
export class StreamSettingsService {
  constructor(
    private readonly d: AuditDeps,
    private readonly delivery: StreamDelivery,
  ) {}

  private async out(row: StreamRow, secret?: string): Promise<AuditStreamOut> {
    const out = streamOut(row, await pendingCount(this.d.db, row.id), SIGNATURE_HEADER);
    return secret ? { ...out, secret } : out;
  }

  async get(orgId: string): Promise<AuditStreamOut> {
    const row = await streamOf(this.d.db, orgId);
    if (!row) throw notFound('audit stream');
    return this.out(row);
  }

  /** Creates the stream (answering its signing secret, once) or changes it. */
  async put(actor: SignedInActor, input: StreamInput): Promise<{ stream: AuditStreamOut; created: boolean }> {
    const { db, secretBox } = this.d;
    await requireFeature(this.d, db, actor.orgId, 'audit_stream');
    if (input.kind === 'https') checkUrl(input.url, this.d.allowLoopbackFetch);
    return db.transaction(async (trx) => {
      const current =
        ((await trx('audit_streams').where({ org_id: actor.orgId }).forUpdate().first()) as StreamRow | undefined) ??
        null;
      const id = current?.id ?? newId('ast');
      const now = this.d.clock();
      const fields: Partial<StreamRow> = {
        kind: input.kind,
        enabled: input.enabled ?? current?.enabled ?? true,
        url: input.kind === 'https' ? input.url! : null,
        cw_region: null,
        cw_log_group: null,
        cw_log_stream: null,
        cw_access_key_id: null,
        cw_secret_encrypted: null,
        cw_secret_last4: null,
        updated_at: now,
      };
      if (input.kind === 'cloudwatch') {
        const cw = input.cloudwatch;
        if (!cw) throw invalid('cloudwatch', 'cloudwatch settings are required for a cloudwatch stream');
        const keepSecret =
          current?.kind === 'cloudwatch' &&
          current.cw_access_key_id === cw.access_key_id &&
          current.cw_secret_encrypted;
        if (!cw.secret_access_key && !keepSecret)
          throw invalid('cloudwatch.secret_access_key', 'secret_access_key is required for new credentials');
        Object.assign(fields, {
          cw_region: cw.region,
          cw_log_group: cw.log_group,
          cw_log_stream: cw.log_stream,
          cw_access_key_id: cw.access_key_id,
          cw_secret_encrypted: cw.secret_access_key
            ? secretBox.encrypt(cw.secret_access_key, cloudwatchSecretContext(id))
            : current!.cw_secret_encrypted,
          cw_secret_last4: cw.secret_access_key ? last4(cw.secret_access_key) : current!.cw_secret_last4,
        });
      }
      // A destination that was failing gets a fresh start when its settings change.
      Object.assign(fields, { consecutive_failures: 0, next_attempt_at: null, last_error: null });
      const who = { orgId: actor.orgId, actor, target: { type: 'audit_stream', id } };
      if (!current) {
        const secret = newSigningSecret();
        await trx('audit_streams').insert({
          id,
          org_id: actor.orgId,
          ...fields,
          secret_encrypted: secretBox.encrypt(secret, secretContext(id)),
          secret_last4: last4(secret),
          created_at: now,
        });
        await this.d.audit.record(trx, { ...who, action: 'audit_stream.created', metadata: destination(fields) });
        const row = (await trx('audit_streams').where({ id }).first()) as StreamRow;
        return { stream: { ...streamOut(row, 0, SIGNATURE_HEADER), secret }, created: true };
      }
      await trx('audit_streams').where({ id }).update(fields);
      const changes = diffFields(destination(current), destination(fields));
      if (Object.keys(changes).length)
        await this.d.audit.record(trx, { ...who, action: 'audit_stream.updated', changes });
      const row = (await trx('audit_streams').where({ id }).first()) as StreamRow;
      return { stream: streamOut(row, await pendingCount(trx, id), SIGNATURE_HEADER), created: false };
    });
  }

  /** Removes the stream and its undelivered queue. */
  async remove(actor: SignedInActor): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const row = (await trx('audit_streams').where({ org_id: actor.orgId }).first()) as StreamRow | undefined;
      if (!row) throw notFound('audit stream');
      await trx('audit_streams').where({ id: row.id }).delete();
      await this.d.audit.record(trx, {
        actor,
        action: 'audit_stream.deleted',
        target: { type: 'audit_stream', id: row.id },
        metadata: destination(row),
      });
    });
  }

  /** A new signing secret, shown once; the previous one still signs for `previousSecretHours`. */
  async rotateSecret(actor: SignedInActor): Promise<AuditStreamOut> {
    const { db, secretBox } = this.d;
    await requireFeature(this.d, db, actor.orgId, 'audit_stream');
    return db.transaction(async (trx) => {
      const row = (await trx('audit_streams').where({ org_id: actor.orgId }).forUpdate().first()) as
        StreamRow | undefined;
      if (!row) throw notFound('audit stream');
      const secret = newSigningSecret();
      const now = this.d.clock();
      await trx('audit_streams')
        .where({ id: row.id })
        .update({
          secret_encrypted: secretBox.encrypt(secret, secretContext(row.id)),
          secret_last4: last4(secret),
          previous_secret_encrypted: row.secret_encrypted,
          previous_secret_expires_at: new Date(now.getTime() + this.d.options.stream.previousSecretHours * 3_600_000),
          updated_at: now,
        });
      await this.d.audit.record(trx, {
        actor,
        action: 'audit_stream.secret_rotated',
        target: { type: 'audit_stream', id: row.id },
      });
      const updated = (await trx('audit_streams').where({ id: row.id }).first()) as StreamRow;
      return { ...streamOut(updated, await pendingCount(trx, row.id), SIGNATURE_HEADER), secret };
    });
  }

  /** Sends a signed batch holding one test entry (not from the log, not queued) and answers how it went. */
  async test(actor: SignedInActor): Promise<TestResult> {
    const { db } = this.d;
    await requireFeature(this.d, db, actor.orgId, 'audit_stream');
    const row = await streamOf(db, actor.orgId);
    if (!row) throw notFound('audit stream');
    await this.d.rateLimiter.consume(`audit-stream-test:${actor.orgId}`, 10, 60_000);
    const now = this.d.clock();
    const entryId = newId('aud');
    const batch = {
      batch_id: `ab_test_${randomBytes(12).toString('hex')}`,
      stream_id: row.id,
      org_id: row.org_id,
      test: true,
      sent_at: now.toISOString(),
      entries: [
        {
          id: entryId,
          org_id: row.org_id,
          action: 'audit_stream.test',
          actor: { type: actor.type, id: actor.id, email: actor.email },
          target: { type: 'audit_stream', id: row.id },
          workspace_id: null,
          changes: null,
          metadata: { message: 'This is a test batch from Patchwell.' },
          ip: actor.ip,
          user_agent: actor.userAgent,
          request_id: actor.requestId,
          created_at: now.toISOString(),
        },
      ],
    };
    const result = await this.delivery.send(row, batch);
    return { ...result, batch_id: batch.batch_id };
  }
}

/** The destination fields that audit entries name (never a secret). */
function destination(f: Partial<StreamRow>): Record<string, unknown> {
  return {
    kind: f.kind,
    enabled: f.enabled,
    url: f.url ?? null,
    cw_region: f.cw_region ?? null,
    cw_log_group: f.cw_log_group ?? null,
    cw_log_stream: f.cw_log_stream ?? null,
    cw_access_key_id: f.cw_access_key_id ?? null,
  };
}

/** An https URL without credentials; literal private addresses are refused now (names at delivery). */
function checkUrl(url: string | undefined, allowLoopback: boolean): void {
  if (!url) throw invalid('url', 'url is required for an https stream');
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalid('url', 'url is not a valid URL');
  }
  if (u.protocol !== 'https:') throw invalid('url', 'url must use https');
  if (u.username || u.password) throw invalid('url', 'url must not carry credentials');
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host.toLowerCase() === 'localhost' && !allowLoopback)
    throw httpError(422, 'blocked_address', 'url points to a private or reserved address', { host });
  if (isIP(host) && blockedReason(host, { allowLoopback }))
    throw httpError(422, 'blocked_address', 'url points to a private or reserved address', { host });
}
