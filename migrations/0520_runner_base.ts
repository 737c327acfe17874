import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Customer runners (plugin `runner`, docs/runner.md): registered runners with their hashed
 * token, the per-job tokens they are handed at claim (job token and agent token, hashed,
 * expiring), what a runner did with a claimed job (its result, once), and the workspace's agent
 * login that one job at a time may hold.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('runners', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('name').notNullable();
    t.text('token_hash').notNullable();
    t.text('token_last4').notNullable();
    t.text('created_by');
    ts(t, 'rotated_at');
    ts(t, 'revoked_at');
    ts(t, 'last_seen_at');
    t.timestamps(true, true);
  });
  await knex.raw('create unique index runners_token_uq on runners (token_hash)');
  await knex.raw('create unique index runners_name_uq on runners (org_id, workspace_id, name)');

  // One row per claim of a job by a runner (the job id and its attempt): tokens of an older
  // attempt are revoked when the job is claimed again.
  await knex.schema.createTable('runner_job_tokens', (t) => {
    idAndOrgId(t);
    t.text('job_id').notNullable().references('fix_jobs.id').onDelete('CASCADE');
    t.text('runner_id').notNullable().references('runners.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    // job: the runner's token (all nine operations); agent: the agent process's (payload, events, heartbeat)
    t.text('kind').notNullable();
    t.text('token_hash').notNullable();
    ts(t, 'expires_at').notNullable();
    ts(t, 'revoked_at');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create unique index runner_job_tokens_hash_uq on runner_job_tokens (token_hash)');
  await knex.raw('create index runner_job_tokens_job_idx on runner_job_tokens (job_id)');
  await knex.raw(
    `alter table runner_job_tokens add constraint runner_job_tokens_kind_check check (kind in ('job','agent'))`,
  );

  await knex.schema.createTable('runner_jobs', (t) => {
    idAndOrgId(t);
    t.text('job_id').notNullable().references('fix_jobs.id').onDelete('CASCADE');
    t.text('runner_id').notNullable().references('runners.id').onDelete('CASCADE');
    t.integer('attempt').notNullable();
    ts(t, 'claimed_at').notNullable();
    ts(t, 'started_at');
    // Installation tokens handed out for the job (secret box), masked by value in its events.
    t.text('git_tokens_box');
    // The accepted result (sha256 of its canonical JSON) and the answer given, for replays.
    t.text('result_hash');
    t.jsonb('result_answer');
    t.timestamps(true, true);
  });
  await knex.raw('create unique index runner_jobs_job_uq on runner_jobs (job_id)');

  await knex.schema.createTable('runner_agent_credentials', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable();
    t.text('kind').notNullable().defaultTo('agent_login_file');
    t.text('secret_box').notNullable();
    t.text('last4').notNullable();
    t.text('locked_job_id');
    ts(t, 'locked_at');
    ts(t, 'rotated_at');
    t.timestamps(true, true);
  });
  await knex.raw(
    'create unique index runner_agent_credentials_ws_uq on runner_agent_credentials (org_id, workspace_id)',
  );
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['runner_agent_credentials', 'runner_jobs', 'runner_job_tokens', 'runners'])
    await knex.schema.dropTableIfExists(t);
}
