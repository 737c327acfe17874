import type { Knex } from 'knex';

/**
 * Staff review of open-source sponsorship requests (plugin analytics): who decided, when, why,
 * for which organization and how many sponsored fixes were granted.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('oss_sponsorship_requests', (t) => {
    t.timestamp('decided_at', { useTz: true });
    t.text('decided_by'); // user id of the staff member
    t.text('decided_by_email');
    t.text('decision_note');
    t.text('organization_id'); // the organization granted sponsored credits, when named
    t.integer('fixes_granted');
    t.timestamp('credits_expire_at', { useTz: true });
  });
  await knex.raw(
    'create index oss_sponsorship_status_idx on oss_sponsorship_requests (status, created_at desc, id desc)',
  );
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists oss_sponsorship_status_idx');
  await knex.schema.alterTable('oss_sponsorship_requests', (t) => {
    t.dropColumns(
      'decided_at',
      'decided_by',
      'decided_by_email',
      'decision_note',
      'organization_id',
      'fixes_granted',
      'credits_expire_at',
    );
  });
}
