/**
 * What the load of a fault scenario (harness.ts startLoad) must leave behind, whatever the fault:
 * every request answered (the client retries as real clients do), every event answered 202 stored
 * once, every email answered 200 in exactly one ticket message, no half-written ticket (each has its
 * first message and its tickets.created outbox row), the outbox drained, no dead letter.
 */
import type { Test } from 'tap';
import { count, waitFor, type ChaosCluster, type LoadReport, type Shop } from './harness.js';

/** A `count('* as n')` per value of a column (the column's value under its own name). */
interface KeyCount {
  n: number | string;
  [column: string]: unknown;
}

/** A row of which only the id is read. */
interface IdRow {
  id: string;
}

/** A dead letter (dead_letters), the columns read. */
interface DeadLetterRow {
  consumer: string;
  type: string;
  error: string;
}

/** Row counts per key, for the ids of `ids` (in chunks, so the query stays small). */
async function countsBy(
  cluster: ChaosCluster,
  table: string,
  column: string,
  ids: string[],
): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows: KeyCount[] = await cluster
      .db<KeyCount>(table)
      .whereIn(column, ids.slice(i, i + 500))
      .groupBy(column)
      .select(column)
      .count<KeyCount[]>('* as n');
    for (const r of rows) out.set(String(r[column]), Number(r.n));
  }
  return out;
}

export async function loadInvariants(t: Test, cluster: ChaosCluster, shop: Shop, report: LoadReport): Promise<void> {
  const { db } = cluster;
  t.comment(
    `load: ${report.events.sent} events (${report.events.accepted} accepted, ${report.events.refused} refused), ` +
      `${report.emails.sent} emails (${report.emails.refused} refused), ${report.bugReports.length} bug reports, ` +
      `${report.retried} retries in ${(report.ms / 1000).toFixed(1)} s; answers ${JSON.stringify(report.statuses)}, ` +
      `emails ${JSON.stringify(report.emails.outcomes)}`,
  );
  t.same(report.lost, [], 'every request of the load got an answer (retrying as a client does)');

  const events = await countsBy(cluster, 'error_events', 'external_id', report.events.externalIds);
  const missing = report.events.externalIds.filter((id) => events.get(id) !== 1);
  t.same(missing, [], `each of the ${report.events.externalIds.length} events answered 202 is stored once`);

  const ids = report.emails.messageIds.flatMap((id) => [`<${id}>`, id]);
  const messages = await countsBy(cluster, 'ticket_messages', 'email_message_id', ids);
  const notOnce = report.emails.messageIds.filter(
    (id) => (messages.get(`<${id}>`) ?? 0) + (messages.get(id) ?? 0) !== 1,
  );
  t.same(notOnce, [], `each of the ${report.emails.messageIds.length} emails answered 200 is one ticket message`);

  const workspaceId = shop.workspace.id;
  const halfWritten = await db<IdRow>('tickets as t')
    .where('t.workspace_id', workspaceId)
    .whereNotExists(db('ticket_messages as m').whereRaw('m.ticket_id = t.id'))
    .select<IdRow[]>('t.id');
  t.same(halfWritten, [], 'no ticket without its first message');
  const unannounced = await db<IdRow>('tickets as t')
    .where('t.workspace_id', workspaceId)
    .whereNotExists(db('outbox as o').where('o.type', 'tickets.created').whereRaw("o.payload->>'ticket_id' = t.id"))
    .select<IdRow[]>('t.id');
  t.same(unannounced, [], 'no ticket without its tickets.created outbox row');

  const drained = await waitFor(
    async () => (await count(db('outbox').whereNull('published_at'))) === 0,
    'the outbox to drain',
    30_000,
  ).catch(() => false);
  t.ok(drained, 'the outbox drained (every committed event published)');
  if (!drained)
    t.comment(
      JSON.stringify(await db('outbox').whereNull('published_at').select('type', 'attempts', 'last_error').limit(5)),
    );
  const dead = (await db('dead_letters').select('consumer', 'type', 'error').limit(5)) as DeadLetterRow[];
  t.same(dead, [], 'no dead letters');
}
