import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * The fix loop (plugin `fixes`, docs/fixes.md): jobs leased in Postgres with their event log,
 * diagnoses, fix attempts, approvals at an exact commit and releases. Every table is a tenant
 * table (`org_id`); rows die with their ticket.
 */
export async function up(knex: Knex): Promise<void> {
  // A unit of agent work. The row is the lease: a worker claims it with FOR UPDATE SKIP LOCKED,
  // keeps it with heartbeats, and a lease that runs out makes the job claimable again.
  await knex.schema.createTable('fix_jobs', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.text('kind').notNullable();
    t.text('executor').notNullable();
    t.text('mode').notNullable();
    t.text('status').notNullable().defaultTo('queued');
    t.integer('attempts').notNullable().defaultTo(0);
    t.integer('max_attempts').notNullable().defaultTo(3);
    ts(t, 'run_after').notNullable().defaultTo(knex.fn.now());
    t.text('lease_owner');
    ts(t, 'lease_expires_at');
    ts(t, 'heartbeat_at');
    ts(t, 'started_at');
    ts(t, 'deadline_at');
    ts(t, 'finished_at');
    ts(t, 'cancel_requested_at');
    ts(t, 'dead_at');
    t.jsonb('payload').notNullable().defaultTo('{}');
    t.jsonb('result');
    t.text('error_code');
    t.text('error_detail');
    t.decimal('cost_usd', 12, 4).notNullable().defaultTo(0);
    t.text('idempotency_key');
    t.text('fix_attempt_id');
    t.timestamps(true, true);
  });
  await knex.raw(
    `alter table fix_jobs add constraint fix_jobs_status_check check (status in ('queued','running','succeeded','failed','cancelled','dead'))`,
  );
  await knex.raw(`alter table fix_jobs add constraint fix_jobs_kind_check check (kind in ('diagnose','fix'))`);
  await knex.raw(
    'create unique index fix_jobs_idem_uq on fix_jobs (org_id, idempotency_key) where idempotency_key is not null',
  );
  await knex.raw(`create index fix_jobs_queued_idx on fix_jobs (run_after) where status = 'queued'`);
  await knex.raw(`create index fix_jobs_running_idx on fix_jobs (lease_expires_at) where status = 'running'`);
  await knex.raw('create index fix_jobs_ticket_idx on fix_jobs (ticket_id, created_at)');

  await knex.schema.createTable('fix_job_events', (t) => {
    idAndOrgId(t);
    t.text('job_id').notNullable().references('fix_jobs.id').onDelete('CASCADE');
    t.text('level').notNullable();
    t.text('type').notNullable();
    t.text('message').notNullable();
    t.jsonb('data').notNullable().defaultTo('{}');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  // Order of lines within one job, even within one millisecond (cursor of GET events).
  await knex.raw('alter table fix_job_events add column seq bigserial');
  await knex.raw('create index fix_job_events_job_idx on fix_job_events (job_id, seq)');

  await knex.schema.createTable('fix_diagnoses', (t) => {
    idAndOrgId(t);
    t.text('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.text('job_id').references('fix_jobs.id').onDelete('SET NULL');
    t.text('category').notNullable();
    t.double('confidence').notNullable();
    t.text('root_cause_md').notNullable();
    t.jsonb('references').notNullable().defaultTo('[]');
    t.text('public_summary');
    t.text('language');
    // What the loop did with it: drafted | escalated | fix_queued | autopilot_sent
    t.text('outcome').notNullable();
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index fix_diagnoses_ticket_idx on fix_diagnoses (ticket_id, created_at)');

  await knex.schema.createTable('fix_attempts', (t) => {
    idAndOrgId(t);
    t.text('ticket_id').notNullable().references('tickets.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable();
    t.integer('number').notNullable();
    t.text('job_id');
    t.text('repository_id');
    t.text('branch').notNullable();
    t.text('base_sha');
    t.text('head_sha');
    // running | verified | not_verified | failed | superseded | rejected | merged
    t.text('status').notNullable().defaultTo('running');
    t.boolean('tests_ran').notNullable().defaultTo(false);
    t.boolean('tests_passed').notNullable().defaultTo(false);
    t.boolean('verify_passed').notNullable().defaultTo(false);
    t.text('reason');
    t.text('reviewer_notes');
    t.integer('pr_number');
    t.text('pr_url');
    t.text('pr_state');
    t.timestamps(true, true);
    t.unique(['ticket_id', 'number']);
  });

  // An approval names the exact head commit; a later push voids it (voided_at).
  await knex.schema.createTable('fix_approvals', (t) => {
    idAndOrgId(t);
    t.text('ticket_id').references('tickets.id').onDelete('CASCADE');
    t.text('fix_attempt_id');
    t.text('release_id');
    t.text('sha').notNullable();
    t.text('user_id').notNullable();
    t.text('role').notNullable();
    t.text('comment');
    ts(t, 'voided_at');
    t.text('void_reason');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'create unique index fix_approvals_live_uq on fix_approvals (coalesce(fix_attempt_id, release_id), user_id, sha) where voided_at is null',
  );

  await knex.schema.createTable('fix_releases', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('repository_id');
    t.text('ticket_id').references('tickets.id').onDelete('SET NULL');
    t.text('fix_attempt_id');
    // waiting_version | merging | tagging | releasing | notifying | released | failed
    t.text('status').notNullable();
    t.text('strategy').notNullable();
    t.text('version');
    t.text('tag');
    t.text('approved_sha');
    t.text('merge_sha');
    t.text('ci_state');
    t.text('release_url');
    t.text('error_code');
    t.text('error_detail');
    // The step a failed release stopped at (release/retry resumes there).
    t.text('failed_step');
    ts(t, 'released_at');
    t.timestamps(true, true);
  });
  await knex.raw('create index fix_releases_org_idx on fix_releases (org_id, created_at desc, id desc)');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['fix_releases', 'fix_approvals', 'fix_attempts', 'fix_diagnoses', 'fix_job_events', 'fix_jobs'])
    await knex.schema.dropTableIfExists(t);
}
