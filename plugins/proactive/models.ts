import { tenantModel } from '../../core/data/model.js';
import type { StackFrame } from '../../core/contracts/index.js';

export interface SealedSecret {
  box: string;
  last4: string;
}

/** A log connector of a workspace. */
export class Connector extends tenantModel({ table: 'connectors', idPrefix: 'con', json: ['config', 'secrets'] }) {
  declare workspace_id: string;
  declare kind: 'error_tracker' | 'metrics_platform' | 'cloud_logs' | 'endpoint';
  declare name: string;
  declare status: 'active' | 'paused' | 'error';
  declare config: Record<string, unknown>;
  declare secrets: Record<string, SealedSecret>;
  declare token_hash: string | null;
  declare token_last4: string | null;
  declare key_id: string | null;
  /** The DSN's project id and public key (endpoint connectors): docs/proactive.md, "Sentry SDKs". */
  declare dsn_project_id: number | string;
  declare dsn_public_key: string | null;
  declare cursor: string | null;
  declare last_activity_at: Date | null;
  declare last_delivery_at: Date | null;
  declare next_poll_at: Date | null;
  declare last_error_code: string | null;
  declare last_error: string | null;
  declare error_count: number;
  declare updated_at: Date;
}

export class ConnectorSetup extends tenantModel({ table: 'connector_setups', idPrefix: 'cset' }) {
  declare workspace_id: string;
  declare kind: string;
  declare external_id: string;
  declare updated_at: Date;
}

export type GroupStatus = 'watching' | 'ticketed' | 'resolved' | 'ignored';
export type GroupTrigger = 'user_threshold' | 'critical_path' | 'regression';

export interface StoredFrame extends StackFrame {
  generated?: { file: string; function: string | null; line: number | null; column: number | null } | null;
}

export class ErrorGroup extends tenantModel({
  table: 'error_groups',
  idPrefix: 'eg',
  json: ['frames', 'sources', 'environments'],
}) {
  declare workspace_id: string;
  declare fingerprint: string;
  declare status: GroupStatus;
  declare type: string;
  declare title: string;
  declare normalized_message: string;
  declare sample_stack: string | null;
  declare frames: StoredFrame[];
  declare symbolicated: boolean;
  declare event_count: number | string;
  declare affected_users: number;
  declare first_seen: Date;
  declare last_seen: Date;
  declare release: string | null;
  declare sources: string[];
  declare environments: string[];
  declare trigger: GroupTrigger | null;
  declare critical_path_hit: boolean;
  declare noise: boolean;
  declare held_reason: string | null;
  declare held_at: Date | null;
  declare resolved_in_release: string | null;
  declare resolved_at: Date | null;
  declare regressed_at: Date | null;
  declare ticket_id: string | null;
  declare triggered_at: Date | null;
  declare updated_at: Date;
}
