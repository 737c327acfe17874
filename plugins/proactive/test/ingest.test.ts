import t from 'tap';
import { purgeExpiredEvents } from '../services/retention.js';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { GroupWriter, IncomingEvent } from '../services/group-writer.js';
import { IngestQueue } from '../services/ingest-queue.js';
import { startProactive } from './helpers.js';

/**
 * An ingest queue over a group writer that runs `write` (and answers every event as new in group
 * eg_1) and a database that only opens transactions: the queue's own bounds and flushing are tested.
 */
function queueWith(
  write: (events: IncomingEvent[]) => Promise<void>,
  options: { batchMaxEvents: number; maxQueuedEvents: number; retryAfterSeconds: number; flushers: number },
): IngestQueue {
  const writer = {
    write: async (_trx: unknown, events: IncomingEvent[]) => {
      await write(events);
      return events.map(() => ({ groupId: 'eg_1', duplicate: false }));
    },
  } as unknown as GroupWriter;
  const builder = { whereIn: () => builder, select: () => Promise.resolve([]) };
  const db = Object.assign(() => builder, {
    transaction: (fn: (trx: unknown) => unknown) => Promise.resolve(fn({})),
  }) as unknown as Knex;
  const log = { error() {}, debug() {} } as unknown as Logger;
  return new IngestQueue(db, writer, { ...options, settingsCacheMs: 1000 }, log);
}

const ev = (): IncomingEvent => ({
  orgId: 'o',
  workspaceId: 'w',
  connectorId: null,
  source: 'endpoint',
  event: { type: 'E', message: 'm', level: 'error', occurred_at: new Date().toISOString() },
});

t.test(
  'the ingest queue refuses beyond its bound while a batch commits, and answers accepted events once committed',
  async (t) => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const written: number[] = [];
    const queue = queueWith(
      async (events) => {
        await gate;
        written.push(events.length);
      },
      { batchMaxEvents: 10, maxQueuedEvents: 3, retryAfterSeconds: 4, flushers: 1 },
    );

    const first = queue.submit([ev(), ev()]);
    t.equal(queue.depth, 2);
    const refused = (await queue.submit([ev(), ev()]).then(
      () => null,
      (e: unknown) => e,
    )) as { output: { statusCode: number; headers: Record<string, string> } } | null;
    t.equal(refused?.output.statusCode, 429, 'full: 429');
    t.equal(refused?.output.headers['Retry-After'], '4', 'with Retry-After');
    t.equal(queue.depth, 2, 'the refused events were never queued');
    const third = queue.submit([ev()]);
    release();
    t.equal((await first).length, 2);
    t.equal((await third).length, 1);
    t.same(
      written.reduce((a, b) => a + b, 0),
      3,
      'exactly the accepted events were written',
    );
    t.equal(queue.depth, 0);
    await queue.stop();
    const afterStop = (await queue.submit([ev()]).then(
      () => null,
      (e: unknown) => e,
    )) as { output: { statusCode: number } } | null;
    t.equal(afterStop?.output.statusCode, 429, 'a stopped queue takes nothing');
  },
);

t.test(
  'with two flushers two batches are written side by side; every event is answered once and stop waits for both',
  async (t) => {
    const gates: Array<() => void> = [];
    let concurrent = 0;
    let most = 0;
    const written: number[] = [];
    const queue = queueWith(
      async (events) => {
        concurrent++;
        most = Math.max(most, concurrent);
        await new Promise<void>((r) => gates.push(r));
        concurrent--;
        written.push(events.length);
      },
      { batchMaxEvents: 2, maxQueuedEvents: 100, retryAfterSeconds: 1, flushers: 2 },
    );
    const answers = [queue.submit([ev(), ev()]), queue.submit([ev(), ev()]), queue.submit([ev()])];
    while (gates.length < 2) await new Promise((r) => setTimeout(r, 5));
    t.equal(most, 2, 'two batches in flight at once');
    let stopped = false;
    const stopping = queue.stop().then(() => (stopped = true));
    while (gates.length) {
      gates.shift()!();
      await new Promise((r) => setTimeout(r, 10));
    }
    const outcomes = await Promise.all(answers);
    t.same(
      outcomes.map((o) => o.length),
      [2, 2, 1],
      'each request gets its own outcomes',
    );
    t.equal(
      written.reduce((a, b) => a + b, 0),
      5,
      'every accepted event written once',
    );
    await stopping;
    t.ok(stopped, 'stop resolved after the last batch');
    t.equal(queue.depth, 0);
  },
);

t.test(
  'ingest: a request beyond the queue answers 429 with Retry-After and stores nothing; retention purges old events',
  async (t) => {
    const h = await startProactive(t, {
      plugins: { proactive: { options: { ingest: { maxQueuedEvents: 3, batchMaxEvents: 2, retryAfterSeconds: 3 } } } },
    });
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const c = await h.endpoint(owner, ws.id);

    const tooBig = await h.ingest(
      c.id,
      c.token,
      Array.from({ length: 5 }, (_, i) => ({ message: `big ${i}` })),
    );
    t.equal(tooBig.status, 429, 'more events than the queue holds are refused at once');
    t.equal(tooBig.headers['retry-after'], '3');
    t.equal((await h.ingest(c.id, c.token, { message: 'warm the connector cache' })).status, 202);

    const accepted = 1;
    const stored = await h.app.db('error_events').where({ connector_id: c.id }).count({ n: '*' }).first();
    t.equal(Number(stored!.n), accepted, 'every accepted event is stored, no refused one is');
    const groups = await h.app.db('error_groups').where({ workspace_id: ws.id }).sum({ n: 'event_count' }).first();
    t.equal(Number(groups!.n), accepted, 'and counted');

    // Characters Postgres refuses in text (NUL, a lone UTF-16 surrogate) never fail the batch they share.
    const odd = await h.ingest(c.id, c.token, [
      { message: 'nul \u0000 here', external_id: 'odd-1' },
      { message: 'lone \ud800 surrogate' },
    ]);
    t.equal(odd.status, 202, JSON.stringify(odd.body));
    t.equal(odd.body.accepted, 2);
    const messages = (await h.app
      .db('error_events')
      .where({ connector_id: c.id })
      .whereIn('message', ['nul  here', 'lone \ufffd surrogate'])
      .pluck('message')) as string[];
    t.equal(messages.length, 2, 'both stored, the odd characters dropped or replaced');
    const again = await h.ingest(c.id, c.token, { message: 'nul \u0000 here', external_id: 'odd-1' });
    t.same(
      [again.status, again.body.accepted, again.body.duplicates],
      [202, 0, 1],
      'a repeated external id is a duplicate',
    );
    const counted = await h.app.db('error_groups').where({ workspace_id: ws.id }).sum({ n: 'event_count' }).first();
    t.equal(Number(counted!.n), accepted + 2, 'the duplicate is not counted');

    // Retention: the organization keeps 30 days; older events go, newer stay, group totals stay.
    await h.app.db('organizations').where({ id: owner.organization.id }).update({ retention_days: 30 });
    const ids = (await h.app.db('error_events').where({ connector_id: c.id }).orderBy('id').pluck('id')) as string[];
    await h.app
      .db('error_events')
      .whereIn('id', ids.slice(0, 1))
      .update({ received_at: new Date(Date.now() - 31 * 86_400_000) });
    await h.call(owner, 'DELETE', `/v1/connectors/${c.id}`);
    const purged = await purgeExpiredEvents(h.app.db, new Date());
    t.equal(purged, 1, 'one event past retention');
    const left = await h.app.db('error_events').where({ connector_id: c.id }).count({ n: '*' }).first();
    t.equal(Number(left!.n), accepted + 2 - 1, 'the others stay after the connector is gone');
  },
);

t.test(
  'ingest updates of error groups change no indexed column, so they stay on their page (HOT); events hang off their group',
  async (t) => {
    const h = await startProactive(t);
    // Every column GroupWriter's store (on conflict) and count statements set. An index on any of
    // them turns each count update into a new version with new index entries that only vacuum removes.
    const updated = [
      'updated_at',
      'frames',
      'symbolicated',
      'event_count',
      'affected_users',
      'first_seen',
      'last_seen',
      'release',
      'sources',
      'environments',
      'status',
      'trigger',
      'critical_path_hit',
      'regressed_at',
      'triggered_at',
    ];
    const indexed = (
      await h.app.db.raw<{ rows: Array<{ attname: string }> }>(`
    select distinct a.attname from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey)
    where i.indrelid = 'error_groups'::regclass`)
    ).rows.map((r) => r.attname);
    t.same(
      indexed.filter((c) => updated.includes(c)),
      [],
      `indexed: ${indexed.join(', ')}`,
    );
    const expressions = (
      await h.app.db.raw<{ rows: Array<{ n: number }> }>(
        `select count(*)::int as n from pg_index where indrelid = 'error_groups'::regclass and (indexprs is not null or indpred is not null)`,
      )
    ).rows[0].n;
    t.equal(expressions, 0, 'no expression or partial index, whose columns pg_index.indkey would not show');
    const options = (
      await h.app.db.raw<{ rows: Array<{ reloptions: string[] | null }> }>(
        `select reloptions from pg_class where oid = 'error_groups'::regclass`,
      )
    ).rows[0].reloptions;
    t.ok(options?.includes('fillfactor=50'), 'pages keep room for the updated versions');

    // The list still pages by last seen, newest first.
    const owner = await h.owner();
    const ws = await h.workspace(owner);
    const c = await h.endpoint(owner, ws.id);
    for (const m of ['first problem', 'second problem', 'third problem'])
      t.equal((await h.ingest(c.id, c.token, { message: m, type: m.split(' ')[0] })).status, 202);
    const first = await h.call(owner, 'GET', `/v1/error-groups?workspace_id=${ws.id}&limit=2`);
    const next = await h.call(
      owner,
      'GET',
      `/v1/error-groups?workspace_id=${ws.id}&limit=2&cursor=${first.body.next_cursor as string}`,
    );
    const titles = [...first.body.items, ...next.body.items].map((g) => g.type);
    t.same(titles, ['third', 'second', 'first']);

    // Events hang off their group alone: a workspace that goes (an organization's closure) takes its groups and their events.
    const fks = (
      await h.app.db.raw<{ rows: Array<{ target: string }> }>(
        `select confrelid::regclass::text as target from pg_constraint where conrelid = 'error_events'::regclass and contype = 'f'`,
      )
    ).rows.map((r) => r.target);
    t.same(fks, ['error_groups'], 'one foreign key per stored event');
    await h.app.db('workspaces').where({ id: ws.id }).delete();
    t.equal(
      Number((await h.app.db('error_events').where({ workspace_id: ws.id }).count({ n: '*' }).first())!.n),
      0,
      'no event outlives its workspace',
    );
  },
);
