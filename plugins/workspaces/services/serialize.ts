import type { Workspace } from '../models/workspace.js';
import { iso } from '../../../core/http/times.js';

const num = (v: number | string | null | undefined): number | null => (v == null ? null : Number(v));

/** The list form of the spec's Workspace: every field except the four single-form ones. */
export function workspaceListItem(ws: Workspace): Record<string, unknown> {
  const cfg = ws.agent_config ?? {};
  return {
    id: ws.id,
    org_id: ws.org_id,
    name: ws.name,
    slug: ws.slug,
    client_name: ws.client_name ?? null,
    brand_profile_id: ws.brand_profile_id ?? null,
    resale_price: num(ws.resale_price),
    locale: ws.locale,
    execution_mode: ws.execution_mode,
    agent_id: ws.agent_id,
    auth_method: ws.auth_method ?? null,
    runner_transport: ws.runner_transport ?? null,
    agent_config: {
      model: cfg.model ?? null,
      credential_id: cfg.credential_id ?? null,
      effort: cfg.effort ?? null,
      max_minutes: cfg.max_minutes ?? null,
      max_cost_usd: cfg.max_cost_usd ?? null,
    },
    autonomy: ws.autonomy,
    autopilot_categories: ws.autopilot_categories ?? [],
    confidence_threshold: Number(ws.confidence_threshold),
    share_policy: ws.share_policy,
    test_command: ws.test_command ?? null,
    merge_method: ws.merge_method,
    auto_merge: ws.auto_merge,
    release_batching: ws.release_batching,
    changelog_enabled: ws.changelog_enabled,
    github_release_enabled: ws.github_release_enabled,
    proactive_enabled: ws.proactive_enabled,
    proactive_threshold_users: ws.proactive_threshold_users,
    proactive_monthly_fix_cap: ws.proactive_monthly_fix_cap,
    critical_paths: ws.critical_paths ?? [],
    notify_affected_users: ws.notify_affected_users,
    patterns_opt_in: ws.patterns_opt_in,
    sla_first_response_minutes: ws.sla_first_response_minutes,
    sla_resolution_minutes: ws.sla_resolution_minutes,
    report_recipients: ws.report_recipients ?? [],
    report_intro: ws.report_intro ?? null,
    report_auto_send: ws.report_auto_send,
    managed_addon: ws.managed_addon,
    collect_via_connect: ws.collect_via_connect,
    managed_fixes_with_credits: ws.managed_fixes_with_credits,
    auto_close_days: ws.auto_close_days,
    oss_auto_close_issues: ws.oss_auto_close_issues,
    oss_comments_per_hour: ws.oss_comments_per_hour,
    archived_at: iso(ws.archived_at),
    created_at: iso(ws.created_at),
    updated_at: iso(ws.updated_at),
  };
}

/**
 * The single form (create, get, update, archive): the list form plus inbound_address, widget,
 * release_strategy and available_fix_credits (0 until the billing plugin provides credits).
 */
export function workspaceSingle(ws: Workspace, availableFixCredits = 0): Record<string, unknown> {
  return {
    ...workspaceListItem(ws),
    inbound_address: ws.inbound_address ?? null,
    widget: { public_key: ws.widget_public_key ?? null, allowed_origins: ws.widget_allowed_origins ?? [] },
    release_strategy: ws.release_strategy,
    available_fix_credits: availableFixCredits,
  };
}
