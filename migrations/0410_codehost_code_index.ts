import type { Knex } from 'knex';

/**
 * Code index of a connected repository's default branch: the file tree, symbols found by a
 * simple pattern per language, and chunks of text with a `simple` tsvector for full-text search.
 * Rebuilt as a whole (one transaction) after connect and on each push to the default branch.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('code_index_files', (t) => {
    t.text('org_id').notNullable();
    t.text('repository_id').notNullable().references('repositories.id').onDelete('CASCADE');
    t.text('path').notNullable();
    t.text('sha').notNullable();
    t.integer('size').notNullable();
    t.text('language');
    // False for binary, oversized or vendored files: listed in the tree, not searched.
    t.boolean('indexed').notNullable();
    t.primary(['repository_id', 'path']);
  });

  await knex.schema.createTable('code_index_symbols', (t) => {
    t.bigIncrements('id');
    t.text('org_id').notNullable();
    t.text('repository_id').notNullable().references('repositories.id').onDelete('CASCADE');
    t.text('path').notNullable();
    t.text('name').notNullable();
    t.text('kind').notNullable();
    t.integer('line').notNullable();
  });
  await knex.raw('create index code_index_symbols_repo_name_idx on code_index_symbols (repository_id, lower(name))');

  await knex.schema.createTable('code_index_chunks', (t) => {
    t.bigIncrements('id');
    t.text('org_id').notNullable();
    t.text('repository_id').notNullable().references('repositories.id').onDelete('CASCADE');
    t.text('path').notNullable();
    t.integer('line_start').notNullable();
    t.integer('line_end').notNullable();
    t.text('symbol');
    t.text('content').notNullable();
    // The content plus its identifiers split at camelCase and snake_case boundaries.
    t.text('search_text').notNullable();
  });
  await knex.raw(
    "alter table code_index_chunks add column tsv tsvector generated always as (to_tsvector('simple', search_text)) stored",
  );
  await knex.raw('create index code_index_chunks_tsv_idx on code_index_chunks using gin (tsv)');
  await knex.raw('create index code_index_chunks_repo_idx on code_index_chunks (repository_id)');
}

export async function down(knex: Knex): Promise<void> {
  for (const t of ['code_index_chunks', 'code_index_symbols', 'code_index_files'])
    await knex.schema.dropTableIfExists(t);
}
