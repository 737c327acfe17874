import type { Knex } from 'knex';
import { iso } from '../../../core/http/times.js';

/** A row of audit_streams. */
export interface StreamRow {
  id: string;
  org_id: string;
  kind: 'https' | 'cloudwatch';
  enabled: boolean;
  url: string | null;
  cw_region: string | null;
  cw_log_group: string | null;
  cw_log_stream: string | null;
  cw_access_key_id: string | null;
  cw_secret_encrypted: string | null;
  cw_secret_last4: string | null;
  secret_encrypted: string;
  secret_last4: string;
  previous_secret_encrypted: string | null;
  previous_secret_expires_at: Date | null;
  delivered_count: string | number;
  last_delivered_entry_id: string | null;
  last_delivered_at: Date | null;
  last_attempt_at: Date | null;
  last_error: string | null;
  consecutive_failures: number;
  next_attempt_at: Date | null;
  lease_until: Date | null;
  created_at: Date;
  updated_at: Date;
}

/** The stream settings as the API answers them (AuditStream). */
export interface AuditStreamOut {
  id: string;
  kind: 'https' | 'cloudwatch';
  enabled: boolean;
  status: 'active' | 'failing' | 'disabled';
  url: string | null;
  cloudwatch: {
    region: string;
    log_group: string;
    log_stream: string;
    access_key_id: string;
    secret_access_key_last4: string;
  } | null;
  signature_header: string;
  secret_last4: string;
  delivery: {
    pending: number;
    delivered: number;
    last_delivered_entry_id: string | null;
    last_delivered_at: string | null;
    last_attempt_at: string | null;
    last_error: string | null;
    consecutive_failures: number;
    next_attempt_at: string | null;
  };
  created_at: string;
  updated_at: string;
  secret?: string;
}

export const secretContext = (streamId: string) => `audit_stream:${streamId}`;
export const cloudwatchSecretContext = (streamId: string) => `audit_stream_cw:${streamId}`;

export async function streamOf(db: Knex, orgId: string): Promise<StreamRow | null> {
  return ((await db('audit_streams').where({ org_id: orgId }).first()) as StreamRow | undefined) ?? null;
}

export async function pendingCount(db: Knex, streamId: string): Promise<number> {
  const [row]: Array<{ n: string | number }> = await db('audit_stream_queue')
    .where({ stream_id: streamId })
    .count('* as n');
  return Number(row?.n ?? 0);
}

export function streamOut(row: StreamRow, pending: number, signatureHeader: string): AuditStreamOut {
  return {
    id: row.id,
    kind: row.kind,
    enabled: row.enabled,
    status: !row.enabled ? 'disabled' : row.consecutive_failures > 0 ? 'failing' : 'active',
    url: row.kind === 'https' ? row.url : null,
    cloudwatch:
      row.kind === 'cloudwatch'
        ? {
            region: row.cw_region!,
            log_group: row.cw_log_group!,
            log_stream: row.cw_log_stream!,
            access_key_id: row.cw_access_key_id!,
            secret_access_key_last4: row.cw_secret_last4!,
          }
        : null,
    signature_header: signatureHeader,
    secret_last4: row.secret_last4,
    delivery: {
      pending,
      delivered: Number(row.delivered_count),
      last_delivered_entry_id: row.last_delivered_entry_id,
      last_delivered_at: iso(row.last_delivered_at),
      last_attempt_at: iso(row.last_attempt_at),
      last_error: row.last_error,
      consecutive_failures: row.consecutive_failures,
      next_attempt_at: iso(row.next_attempt_at),
    },
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}
