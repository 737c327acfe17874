import type { Knex } from 'knex';

/**
 * Deletes stored error events older than their organization's retention_days (also those of
 * deleted connectors, which stay until then), in slices so one run never holds long locks, and
 * hourly counters of groups and connectors older than two days (their events_24h and trend cover 24 hours). Group totals are kept.
 */
export async function purgeExpiredEvents(db: Knex, now: Date, slice = 5_000, maxSlices = 20): Promise<number> {
  let total = 0;
  for (let i = 0; i < maxSlices; i++) {
    const res: { rowCount?: number; affectedRows?: number } = await db.raw(
      `delete from error_events where id in (
         select e.id from error_events e join organizations o on o.id = e.org_id
         where e.received_at < ?::timestamptz - make_interval(days => greatest(o.retention_days, 1))
         limit ?)`,
      [now.toISOString(), slice],
    );
    const n = Number(res.rowCount ?? res.affectedRows ?? 0);
    total += n;
    if (n < slice) break;
  }
  const counted = new Date(now.getTime() - 2 * 86_400_000);
  await db('error_group_hours').where('hour', '<', counted).delete();
  await db('connector_hours').where('hour', '<', counted).delete();
  return total;
}
