import type { Knex } from 'knex';
import { idAndOrgId } from './columns.js';

/**
 * Monthly client reports of agencies (plugin agency): one row per client workspace and month,
 * unique so that generating twice answers the same report (GET|POST /v1/agency/reports,
 * GET /v1/agency/reports/{id}, POST /v1/agency/reports/{id}/send). Also gives stored mail its
 * attachments (the mail plugin sends the report's PDF with the email).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('agency_reports', (t) => {
    idAndOrgId(t).references('organizations.id').onDelete('CASCADE');
    t.text('workspace_id').notNullable().references('workspaces.id').onDelete('CASCADE');
    // The UTC calendar month, `YYYY-MM`.
    t.text('month').notNullable();
    t.text('client_name').notNullable();
    t.text('locale').notNullable();
    // The month's numbers as computed at generation time (answered as `figures`).
    t.jsonb('figures').notNullable();
    t.text('status').notNullable().defaultTo('generated'); // generated | sent
    t.jsonb('recipients').notNullable().defaultTo('[]');
    t.text('generated_by');
    t.timestamp('generated_at', { useTz: true }).notNullable();
    t.timestamp('sent_at', { useTz: true });
    t.integer('send_count').notNullable().defaultTo(0);
    t.text('last_mail_id');
    t.timestamps(true, true);
  });
  await knex.raw(
    `alter table agency_reports add constraint agency_reports_status_check check (status in ('generated', 'sent'))`,
  );
  await knex.raw('create unique index agency_reports_client_month_idx on agency_reports (org_id, workspace_id, month)');
  await knex.raw('create index agency_reports_list_idx on agency_reports (org_id, month desc, id desc)');
  if (!(await knex.schema.hasColumn('mail_messages', 'attachments'))) {
    await knex.schema.alterTable('mail_messages', (t) => {
      // [{filename, content_type, content_base64}] or null.
      t.jsonb('attachments');
    });
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTableIfExists('agency_reports');
  if (await knex.schema.hasColumn('mail_messages', 'attachments')) {
    await knex.schema.alterTable('mail_messages', (t) => t.dropColumn('attachments'));
  }
}
