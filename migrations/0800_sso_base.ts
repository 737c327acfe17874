import type { Knex } from 'knex';
import { idAndOrgId, ts } from './columns.js';

/**
 * Single sign-on: connections (OIDC or SAML; the client secret sealed by the secret box), claimed
 * email domains with their TXT challenge, links between IdP subjects and users, sign-ins in
 * flight (state, PKCE verifier and nonce kept server side, bound to the browser by a cookie
 * hash), SAML assertion ids seen (each accepted once) and break-glass recovery codes (hashed).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('sso_connections', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('protocol').notNullable(); // oidc | saml
    t.text('name').notNullable();
    t.text('issuer'); // OIDC issuer; SAML IdP entity id
    t.text('client_id');
    t.text('client_secret_sealed');
    t.text('idp_sso_url');
    t.text('idp_cert');
    t.text('idp_metadata_xml');
    ts(t, 'certificate_expires_at');
    t.jsonb('domains').notNullable().defaultTo('[]');
    t.text('default_role').notNullable().defaultTo('reviewer');
    t.boolean('jit_enabled').notNullable().defaultTo(false);
    ts(t, 'last_login_at');
    t.timestamps(true, true);
  });
  await knex.raw('create index sso_connections_org_idx on sso_connections (org_id, created_at, id)');

  await knex.schema.createTable('sso_domains', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('domain').notNullable(); // lower-case, no trailing dot
    t.text('status').notNullable().defaultTo('pending'); // pending | verified
    t.text('txt_value').notNullable();
    ts(t, 'verified_at');
    ts(t, 'last_checked_at');
    t.text('last_error');
    t.timestamps(true, true);
    t.unique(['org_id', 'domain']);
  });
  // A domain is verified by one organization at most.
  await knex.raw("create unique index sso_domains_verified_uq on sso_domains (domain) where status = 'verified'");

  await knex.schema.createTable('sso_identities', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('connection_id').notNullable().references('sso_connections.id').onDelete('CASCADE');
    t.text('user_id').notNullable().references('users.id').onDelete('CASCADE');
    t.text('subject').notNullable();
    t.text('email').notNullable();
    ts(t, 'last_login_at');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
    t.unique(['connection_id', 'subject']);
    t.unique(['connection_id', 'user_id']);
  });

  await knex.schema.createTable('sso_sign_ins', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('connection_id').notNullable().references('sso_connections.id').onDelete('CASCADE');
    t.text('state_hash').notNullable().unique();
    t.text('browser_hash').notNullable();
    t.text('pending_sealed').notNullable();
    t.text('redirect_to');
    ts(t, 'expires_at').notNullable();
    ts(t, 'used_at');
    // SAML: the validated sign-in waits here for /v1/auth/sso/complete in the same browser.
    t.text('complete_token_hash').unique();
    t.text('user_id');
    ts(t, 'complete_expires_at');
    ts(t, 'completed_at');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index sso_sign_ins_expires_idx on sso_sign_ins (expires_at)');

  await knex.schema.createTable('sso_assertions', (t) => {
    t.text('connection_id').notNullable();
    t.text('assertion_id').notNullable();
    t.text('org_id').notNullable();
    ts(t, 'expires_at').notNullable();
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
    t.primary(['connection_id', 'assertion_id']);
  });

  await knex.schema.createTable('sso_recovery_codes', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('code_hash').notNullable().unique();
    ts(t, 'generated_at').notNullable();
    ts(t, 'used_at');
    t.text('used_by_user_id');
    ts(t, 'created_at').notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('create index sso_recovery_codes_org_idx on sso_recovery_codes (org_id) where used_at is null');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of [
    'sso_recovery_codes',
    'sso_assertions',
    'sso_sign_ins',
    'sso_identities',
    'sso_domains',
    'sso_connections',
  ]) {
    await knex.schema.dropTableIfExists(t);
  }
}
