import { tenantModel } from '../../../core/data/model.js';

export interface AgentConfig {
  model?: string | null;
  credential_id?: string | null;
  effort?: string | null;
  max_minutes?: number | null;
  max_cost_usd?: number | null;
}

/** A row of `workspaces` (base columns from accounts, settings from migration 0300). */
export class Workspace extends tenantModel({
  table: 'workspaces',
  idPrefix: 'ws',
  json: ['agent_config', 'autopilot_categories', 'critical_paths', 'report_recipients', 'widget_allowed_origins'],
}) {
  declare name: string;
  declare slug: string;
  declare client_name: string | null;
  declare brand_profile_id: string | null;
  declare resale_price: number | string | null;
  declare locale: string;
  declare execution_mode: 'managed' | 'runner' | 'mcp';
  declare agent_id: string;
  declare auth_method: string | null;
  declare runner_transport: string | null;
  declare agent_config: AgentConfig;
  declare autonomy: 'copilot' | 'approve' | 'autopilot';
  declare autopilot_categories: string[];
  declare confidence_threshold: number;
  declare share_policy: string;
  declare test_command: string | null;
  declare release_strategy: 'semver' | 'calver' | 'manual';
  declare merge_method: 'squash' | 'merge' | 'rebase';
  declare auto_merge: boolean;
  declare release_batching: 'per_ticket' | 'batched';
  declare changelog_enabled: boolean;
  declare github_release_enabled: boolean;
  declare proactive_enabled: boolean;
  declare proactive_threshold_users: number;
  declare proactive_monthly_fix_cap: number;
  declare critical_paths: string[];
  declare notify_affected_users: boolean;
  declare patterns_opt_in: boolean;
  declare sla_first_response_minutes: number;
  declare sla_resolution_minutes: number;
  declare report_recipients: string[];
  declare report_intro: string | null;
  declare report_auto_send: boolean;
  declare managed_addon: boolean;
  declare collect_via_connect: boolean;
  declare managed_fixes_with_credits: boolean;
  declare auto_close_days: number;
  declare oss_auto_close_issues: boolean;
  declare oss_comments_per_hour: number;
  declare inbound_address: string | null;
  declare mailbox_enabled: boolean;
  declare widget_public_key: string | null;
  declare widget_allowed_origins: string[];
  declare widget_key_revoked_at: Date | null;
  declare archived_at: Date | null;
  declare updated_at: Date;
}
