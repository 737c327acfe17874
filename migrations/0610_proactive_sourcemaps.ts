import type { Knex } from 'knex';
import { idAndOrgId } from './columns.js';

/**
 * Proactive: source maps of a workspace's releases, one per bundle URL path, used to symbolicate
 * error frames. See docs/proactive.md ("Source maps").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('source_maps', (t) => {
    idAndOrgId(t);
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    t.text('release').notNullable();
    // The bundle's URL path (`/static/js/app.js`: no scheme, host or query).
    t.text('url_path').notNullable();
    t.text('map').notNullable();
    t.integer('size').notNullable();
    t.text('sha256').notNullable();
    t.integer('sources_count').notNullable().defaultTo(0);
    t.text('uploaded_by');
    t.timestamps(true, true);
    t.unique(['workspace_id', 'release', 'url_path']);
    t.index(['org_id', 'workspace_id', 'release']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('source_maps');
}
