import type { Knex } from 'knex';

/**
 * The Sentry protocol's ingest (docs/proactive.md, "Sentry SDKs"):
 *
 * - `connectors.dsn_project_id` and `dsn_public_key`: the numeric project id and the public key of
 *   an endpoint connector's DSN (`https://<key>@<host>/<project id>`). The key is public by design,
 *   as Sentry's is (browser bundles carry it): it only lets one send events to this connector, so
 *   it is kept in plain and shown in every connector answer; a token rotation replaces it.
 * - `error_events.context`: what an SDK's event carries beyond the error (tags, breadcrumbs, the
 *   SDK's name and version, debug ids).
 * - `source_maps.debug_id`: the map's debug id (its `debug_id` or `debugId` field), which SDK
 *   events name per bundle, so a map matches without a release.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('create sequence connectors_dsn_project_seq start 1001');
  await knex.schema.alterTable('connectors', (t) => {
    t.bigInteger('dsn_project_id').notNullable().defaultTo(knex.raw("nextval('connectors_dsn_project_seq')"));
    t.text('dsn_public_key');
  });
  await knex.raw('create unique index connectors_dsn_project_uq on connectors (dsn_project_id)');
  await knex.raw(
    "update connectors set dsn_public_key = replace(gen_random_uuid()::text, '-', '') where kind = 'endpoint'",
  );
  await knex.schema.alterTable('error_events', (t) => {
    t.jsonb('context');
  });
  await knex.schema.alterTable('source_maps', (t) => {
    t.text('debug_id');
  });
  await knex.raw(
    'create index source_maps_debug_id_idx on source_maps (workspace_id, debug_id) where debug_id is not null',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists source_maps_debug_id_idx');
  await knex.schema.alterTable('source_maps', (t) => t.dropColumn('debug_id'));
  await knex.schema.alterTable('error_events', (t) => t.dropColumn('context'));
  await knex.raw('drop index if exists connectors_dsn_project_uq');
  await knex.schema.alterTable('connectors', (t) => {
    t.dropColumn('dsn_public_key');
    t.dropColumn('dsn_project_id');
  });
  await knex.raw('drop sequence if exists connectors_dsn_project_seq');
}
