// The ticket page (GET /v1/tickets/{id}, issue 25): queries per page and time per page for a
// ticket with 1 attempt and 1 message and for one with 20 attempts, 200 messages, 61 jobs, 12
// drafts and 100 audit entries, in an organization that holds other tickets' rows too (their
// attempts, approvals, releases, jobs and 20,000 audit entries), so that every read must find the
// ticket's rows among others'.
//
//   npx tsx bench/ticket-page.ts                      # embedded PGlite
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/ticket-page.ts
//
// Runs in-process (api role only: no worker or consumer runs meanwhile) with server.inject, so
// the time is the service's own (routing, auth, the reads, serialization), without a network.
// BENCH_PAGE_ROUNDS (default 200) sets the number of measured reads of each ticket;
// BENCH_PAGE_OTHERS (default 2000) the number of other tickets.
import { AsyncLocalStorage } from 'node:async_hooks';
import { cpus, totalmem } from 'node:os';
import type { Knex } from 'knex';
import { newId } from '../core/data/ids.js';
import { createApp } from '../core/kernel/app.js';
import { builtinAdapters } from '../adapters/index.js';
import { builtinPlugins } from '../plugins/index.js';
import { seedBusyTicket } from '../plugins/fixes/test/fixtures/busy-ticket.js';
import { TicketPage } from '../plugins/tickets/services/ticket-page.js';
import type { TicketService } from '../plugins/tickets/services/ticket-service.js';
import { onPlan, signUp } from '../test/helpers/accounts.js';
import { dropTestSchema, testConfig } from '../test/helpers/db.js';
import { pgliteTemplate } from '../core/data/pglite-template.js';

const ROUNDS = Number(process.env.BENCH_PAGE_ROUNDS ?? 200);
const OTHERS = Number(process.env.BENCH_PAGE_OTHERS ?? 2000);
const AUDIT_NOISE = 20_000;

const counting = new AsyncLocalStorage<{ queries: number }>();

/** The columns of `fix_attempts` the bench reads back. */
interface AttemptRow {
  id: string;
  org_id: string;
  ticket_id: string;
}

async function main(): Promise<void> {
  const config = testConfig({ server: { validateResponses: false }, plugins: { fixes: { enabled: true } } });
  const pglite = config.database.url ? undefined : await pgliteTemplate();
  const app = await createApp(config, {
    roles: ['api'],
    plugins: builtinPlugins,
    adapters: builtinAdapters,
    pgliteTemplate: pglite,
  });
  await app.start({ listen: false, scheduler: false });
  const db = app.db as Knex;
  const started = new Map<string, number>();
  const spent = new Map<string, number>();
  db.on('query', (q: { __knexQueryUid: string }) => {
    const s = counting.getStore();
    if (s) s.queries++;
    started.set(q.__knexQueryUid, performance.now());
  });
  // BENCH_PAGE_PROFILE=1: time per statement (from knex's query to its response), summed over the reads.
  db.on('query-response', (_r: unknown, q: { __knexQueryUid: string; sql: string }) => {
    const t0 = started.get(q.__knexQueryUid);
    if (t0 === undefined || !process.env.BENCH_PAGE_PROFILE) return;
    started.delete(q.__knexQueryUid);
    const key = q.sql.replace(/\s+/g, ' ').slice(0, 110);
    spent.set(key, (spent.get(key) ?? 0) + performance.now() - t0);
  });
  try {
    const owner = await signUp(app, { orgName: 'Bench pages' });
    const orgId = owner.organization.id;
    await onPlan(app, orgId, 'growth');
    const created = await app.server.inject({
      method: 'POST',
      url: '/v1/workspaces',
      payload: { name: 'Busy' },
      ...owner.auth,
    });
    const ws = JSON.parse(created.payload) as { id: string };
    const tickets = app.container.resolve<TicketService>('ticketService');
    const open = (subject: string) =>
      db.transaction((trx) =>
        tickets.createTicket(trx, {
          orgId,
          workspaceId: ws.id,
          origin: 'email',
          subject,
          customerEmail: 'ada@example.com',
          message: {
            from: 'ada@example.com',
            subject,
            bodyText: 'It fails.',
            emailMessageId: `<${newId('m')}@example.com>`,
          },
        }),
      );

    process.stderr.write(`seeding ${OTHERS} other tickets and ${AUDIT_NOISE} audit entries…\n`);
    await seedOthers(db, orgId, ws.id, owner.user.id);
    const small = await open('A short one');
    const busy = await open('A long one');
    await seedBusyTicket(db, orgId, ws.id, small.id, { attempts: 1, messages: 0, jobs: 0 });
    await seedBusyTicket(db, orgId, ws.id, busy.id, { attempts: 20, messages: 200, jobs: 60 });
    await seedPage(db, orgId, ws.id, busy.id, owner.user.id);
    if (config.database.url) await db.raw('analyze');

    const rows: string[] = [];
    const measure = async (name: string, run: () => Promise<{ statusCode: number; payload: string }>) => {
      for (let i = 0; i < 20; i++) await run(); // warm-up
      const store = { queries: 0 };
      const first = await counting.run(store, run);
      if (first.statusCode !== 200) throw new Error(`${name}: ${first.statusCode} ${first.payload.slice(0, 300)}`);
      const times: number[] = [];
      const cpu = process.cpuUsage();
      for (let i = 0; i < ROUNDS; i++) {
        const t0 = performance.now();
        await run();
        times.push(performance.now() - t0);
      }
      const used = process.cpuUsage(cpu);
      times.sort((a, b) => a - b);
      const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))].toFixed(1);
      const mean = (times.reduce((a, b) => a + b, 0) / times.length).toFixed(1);
      const cpuMs = ((used.user + used.system) / 1000 / ROUNDS).toFixed(1);
      rows.push(
        `| ${name} | ${store.queries} | ${(first.payload.length / 1024).toFixed(0)} KiB | ${q(0.5)} | ${q(0.95)} | ${mean} | ${cpuMs} |`,
      );
    };
    for (const [name, id] of [
      ['GET, 1 attempt, 1 message', small.id],
      ['GET, 20 attempts, 200 messages', busy.id],
    ] as const) {
      await measure(name, () => app.server.inject({ method: 'GET', url: `/v1/tickets/${id}`, ...owner.auth }));
    }
    // What the page adds to the conversation: its sections alone, for the busy ticket.
    const page = new TicketPage(app.container);
    await measure('sections alone, 20 attempts', async () => ({
      statusCode: 200,
      payload: JSON.stringify(await page.load(db, busy)),
    }));
    const machine = `${cpus().length} cores, ${(totalmem() / 2 ** 30).toFixed(0)} GiB`;
    console.log(`\nTicket page, ${config.database.url ? 'Postgres' : 'PGlite'}, ${ROUNDS} reads each, ${machine}\n`);
    console.log('| read | queries | answer | p50 ms | p95 ms | mean ms | CPU ms/read (this process) |');
    console.log('|---|---|---|---|---|---|---|');
    for (const r of rows) console.log(r);
    if (process.env.BENCH_PAGE_PROFILE) {
      console.log('\nms per statement, summed over every read of both tickets:');
      for (const [sql, ms] of [...spent].sort((a, b) => b[1] - a[1]).slice(0, 20))
        console.log(`  ${ms.toFixed(0).padStart(7)}  ${sql}`);
    }
    if (process.argv.includes('explain')) await explain(db, orgId, busy.id);
  } finally {
    await app.stop();
    await dropTestSchema(config);
  }
}

/** Other tickets of the organization, each with an attempt, an approval, a release, two jobs; and audit entries about them. */
async function seedOthers(db: Knex, orgId: string, workspaceId: string, userId: string): Promise<void> {
  const at = new Date(Date.now() - 86_400_000);
  const base = { org_id: orgId, workspace_id: workspaceId, created_at: at, updated_at: at };
  for (let from = 0; from < OTHERS; from += 500) {
    const ids = Array.from({ length: Math.min(500, OTHERS - from) }, () => newId('tkt'));
    await db('tickets').insert(
      ids.map((id, i) => ({
        ...base,
        id,
        origin: 'email',
        subject: `Other ${from + i}`,
        state: 'closed',
        category: 'bug',
        priority: 'normal',
        labels: '[]',
        language: 'en',
        sla_started_at: at,
        public_token_hash: `${id}-hash`,
        public_token_sealed: 'x',
        reply_token: id.slice(-16),
        search_text: '',
      })),
    );
    const attempts = ids.map((id) => ({
      ...base,
      id: newId('fxa'),
      ticket_id: id,
      number: 1,
      branch: `patchwell/${id}-1`,
      status: 'merged',
      head_sha: 'e'.repeat(40),
    }));
    await db('fix_attempts').insert(attempts);
    await db('fix_approvals').insert(
      attempts.map((a) => ({
        id: newId('apr'),
        org_id: orgId,
        ticket_id: a.ticket_id,
        fix_attempt_id: a.id,
        sha: a.head_sha,
        user_id: userId,
        role: 'owner',
        created_at: at,
      })),
    );
    await db('fix_releases').insert(
      ids.map((id) => ({
        ...base,
        id: newId('rel'),
        ticket_id: id,
        status: 'released',
        strategy: 'semver',
        version: '1.0.0',
      })),
    );
    await db('fix_jobs').insert(
      ids.flatMap((id) =>
        ['diagnose', 'fix'].map((kind) => ({
          ...base,
          id: newId('job'),
          ticket_id: id,
          kind,
          executor: 'agent-builtin',
          mode: 'builtin',
          status: 'succeeded',
          payload: '{}',
        })),
      ),
    );
  }
  const targets = await db<AttemptRow>('fix_attempts').where({ org_id: orgId }).select('id', 'ticket_id');
  for (let from = 0; from < AUDIT_NOISE; from += 2000) {
    await db('audit_entries').insert(
      Array.from({ length: Math.min(2000, AUDIT_NOISE - from) }, (_, i) => {
        const t = targets[(from + i) % targets.length];
        const onTicket = i % 2 === 1;
        return {
          id: newId('aud'),
          org_id: orgId,
          workspace_id: workspaceId,
          actor_type: 'user',
          actor_id: userId,
          action: onTicket ? 'ticket.assigned' : 'fix.approved',
          target_type: onTicket ? 'ticket' : 'fix_attempt',
          target_id: onTicket ? t.ticket_id : t.id,
          created_at: new Date(at.getTime() + from + i),
        };
      }),
    );
  }
}

/** The busy ticket's other sections: 12 drafts, 3 diagnoses, a release, 100 audit entries about it and its attempts. */
async function seedPage(db: Knex, orgId: string, workspaceId: string, ticketId: string, userId: string): Promise<void> {
  const at = (i: number) => new Date(Date.now() - 600_000 + i * 1000);
  const mine = { org_id: orgId, ticket_id: ticketId };
  await db('ticket_drafts').insert(
    Array.from({ length: 12 }, (_, i) => ({
      ...mine,
      id: newId('drf'),
      kind: 'reply',
      body_md: `Draft ${i}`,
      status: 'discarded',
      language: 'en',
      created_at: at(i),
      updated_at: at(i),
    })),
  );
  await db('fix_diagnoses').insert(
    Array.from({ length: 3 }, (_, i) => ({
      ...mine,
      id: newId('dgn'),
      category: 'bug',
      confidence: 0.9,
      root_cause_md: 'cartTotal ignores qty',
      references: JSON.stringify([{ path: 'cart.js', line_start: 1, line_end: 2 }]),
      outcome: 'fix_queued',
      created_at: at(i),
    })),
  );
  const attempts = await db<AttemptRow>('fix_attempts').where(mine).select('id');
  await db('fix_releases').insert({
    ...mine,
    id: newId('rel'),
    workspace_id: workspaceId,
    status: 'released',
    strategy: 'semver',
    version: '0.4.2',
    tag: 'v0.4.2',
    created_at: at(0),
    updated_at: at(0),
  });
  await db('audit_entries').insert(
    Array.from({ length: 100 }, (_, i) => ({
      id: newId('aud'),
      org_id: orgId,
      workspace_id: workspaceId,
      actor_type: 'user',
      actor_id: userId,
      action: i % 2 ? 'ticket.assigned' : 'fix.changes_requested',
      target_type: i % 2 ? 'ticket' : 'fix_attempt',
      target_id: i % 2 ? ticketId : attempts[i % attempts.length].id,
      created_at: at(i),
    })),
  );
}

/** The plans of the page's reads that could scan. */
async function explain(db: Knex, orgId: string, ticketId: string): Promise<void> {
  const targets = (await db<AttemptRow>('fix_attempts').where({ org_id: orgId, ticket_id: ticketId }).select('id')).map(
    (r) => r.id,
  );
  const plans: Array<[string, string, unknown[]]> = [
    [
      'audit',
      'select * from audit_entries where org_id = ? and target_id = any(?) order by created_at desc, id desc limit 50',
      [orgId, [ticketId, ...targets]],
    ],
    [
      'approvals',
      'select * from fix_approvals where org_id = ? and ticket_id = ? and fix_attempt_id is not null order by created_at, id',
      [orgId, ticketId],
    ],
    [
      'release',
      `select r.* from fix_releases r left join fix_releases b on b.id = r.batch_id and b.org_id = r.org_id
      where r.org_id = ? and r.ticket_id = ? order by r.created_at desc, r.id desc limit 1`,
      [orgId, ticketId],
    ],
  ];
  for (const [name, sql, args] of plans) {
    const res = await db.raw<{ rows: Array<{ 'QUERY PLAN': string }> }>(
      `explain (analyze, buffers, costs off) ${sql}`,
      args as Knex.RawBinding[],
    );
    console.log(`\n${name}:\n${res.rows.map((r) => `    ${r['QUERY PLAN']}`).join('\n')}`);
  }
}

await main();
