import type { Knex } from 'knex';

/**
 * The workspace settings of the spec's Workspace shape, on top of the base `workspaces` table the
 * accounts plugin creates (id, org_id, name, slug, client_name, locale, execution_mode, autonomy,
 * archived_at, created_at, updated_at), plus the inbound mailbox and the widget install, whose
 * columns this plugin owns (the inbox and widget plugins own their behaviour).
 *
 * `ADD COLUMN IF NOT EXISTS`, so a column the base table already has is left as it is.
 */
const COLUMNS: [name: string, ddl: string][] = [
  ['brand_profile_id', 'text'],
  ['resale_price', 'numeric(12,2)'],
  ['agent_id', "text not null default 'builtin'"],
  ['auth_method', 'text'],
  ['runner_transport', 'text'],
  ['agent_config', "jsonb not null default '{}'::jsonb"],
  ['autopilot_categories', "jsonb not null default '[]'::jsonb"],
  ['confidence_threshold', 'double precision not null default 0.8'],
  ['share_policy', "text not null default 'snippets'"],
  ['test_command', 'text'],
  ['release_strategy', "text not null default 'semver'"],
  ['merge_method', "text not null default 'squash'"],
  ['auto_merge', 'boolean not null default false'],
  ['release_batching', "text not null default 'per_ticket'"],
  ['changelog_enabled', 'boolean not null default true'],
  ['github_release_enabled', 'boolean not null default false'],
  ['proactive_enabled', 'boolean not null default false'],
  ['proactive_threshold_users', 'integer not null default 3'],
  ['proactive_monthly_fix_cap', 'integer not null default 5'],
  ['critical_paths', "jsonb not null default '[]'::jsonb"],
  ['notify_affected_users', 'boolean not null default true'],
  ['patterns_opt_in', 'boolean not null default false'],
  ['sla_first_response_minutes', 'integer not null default 240'],
  ['sla_resolution_minutes', 'integer not null default 2880'],
  ['report_recipients', "jsonb not null default '[]'::jsonb"],
  ['report_intro', 'text'],
  ['report_auto_send', 'boolean not null default false'],
  ['managed_addon', 'boolean not null default false'],
  ['collect_via_connect', 'boolean not null default false'],
  ['managed_fixes_with_credits', 'boolean not null default false'],
  ['auto_close_days', 'integer not null default 7'],
  ['oss_auto_close_issues', 'boolean not null default false'],
  ['oss_comments_per_hour', 'integer not null default 10'],
  // Inbound mailbox: `<slug>-<random>@<inbound domain>`; archive turns mailbox_enabled off.
  ['inbound_address', 'text'],
  ['mailbox_enabled', 'boolean not null default true'],
  // Widget install: the public key (`pk_…`) and the origins allowed to embed it.
  ['widget_public_key', 'text'],
  ['widget_allowed_origins', "jsonb not null default '[]'::jsonb"],
  ['widget_key_revoked_at', 'timestamptz'],
];

export async function up(knex: Knex): Promise<void> {
  for (const [name, ddl] of COLUMNS) await knex.raw(`alter table workspaces add column if not exists "${name}" ${ddl}`);
  await knex.raw(
    'create unique index if not exists workspaces_inbound_address_uniq on workspaces (lower(inbound_address)) where inbound_address is not null',
  );
  await knex.raw(
    'create unique index if not exists workspaces_widget_public_key_uniq on workspaces (widget_public_key) where widget_public_key is not null',
  );
  // The list: the organization's workspaces by name.
  await knex.raw('create index if not exists workspaces_org_name_idx on workspaces (org_id, name, id)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists workspaces_org_name_idx');
  await knex.raw('drop index if exists workspaces_widget_public_key_uniq');
  await knex.raw('drop index if exists workspaces_inbound_address_uniq');
  for (const [name] of [...COLUMNS].reverse()) await knex.raw(`alter table workspaces drop column if exists "${name}"`);
}
