import type { Knex } from 'knex';

/**
 * Credentials that authenticated recently are cached per API process (plugins/accounts/services/
 * credential-cache.ts). Every change that can end or narrow one (a session revoked, a token
 * revoked or re-scoped, a user's role, grants, address or status changed, any of them deleted)
 * notifies channel `pw_credentials` at commit, and every process empties its cache. Column lists
 * leave out what changes on every use (sessions.last_seen_at, idle_expires_at,
 * api_tokens.last_used_at, users.last_login_at), so using a credential notifies nobody.
 */
const TRIGGERS: Record<string, string> = {
  sessions: 'update of revoked_at, user_id, org_id, token_hash, absolute_expires_at or delete',
  api_tokens: 'update of revoked_at, expires_at, role, workspace_ids, user_id, org_id, token_hash or delete',
  users: 'update of role, email, locale, staff, removed_at, disabled_at, org_id or delete',
  user_workspaces: 'insert or update or delete',
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create or replace function pw_credentials_changed() returns trigger language plpgsql as $$
    begin
      perform pg_notify('pw_credentials', tg_table_name);
      return null;
    end $$`);
  for (const [table, events] of Object.entries(TRIGGERS)) {
    await knex.raw(
      `create trigger ${table}_credentials_changed after ${events} on ${table} for each statement execute function pw_credentials_changed()`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  for (const table of Object.keys(TRIGGERS))
    await knex.raw(`drop trigger if exists ${table}_credentials_changed on ${table}`);
  await knex.raw('drop function if exists pw_credentials_changed()');
}
