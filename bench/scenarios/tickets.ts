// Tickets on 1,000,000 rows: seeds an organization with 100 workspaces and a million tickets on
// Postgres (set-based INSERT … SELECT generate_series, in batches), then measures the list
// (filters, sorts, a deep keyset page) and the detail through HTTP.
//
//   createdb -h 127.0.0.1 -U postgres patchwell_bench
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/patchwell_bench npm run bench -- tickets
//
// The seed is kept: a second run on the same database reuses it (the bench owner logs in).
// `npx tsx bench/scenarios/tickets.ts explain` prints the list's EXPLAIN (ANALYZE, BUFFERS) plans
// (recorded in bench/results/2026-11-26-tickets-explain.md). BENCH_TICKETS sets the number of
// tickets (default 1000000).
import { pathToFileURL } from 'node:url';
import knexFactory, { type Knex } from 'knex';
import { api, measure, measurePaced, type Measurement, type Running } from '../harness.js';

const EMAIL = 'bench-tickets@example.com';
const PASSWORD = 'bench tickets password 1';
const WORKSPACES = 100;
const TOTAL = Number(process.env.BENCH_TICKETS ?? 1_000_000);
const BATCH = 100_000;
const DETAIL_SAMPLE = 200;

/** The columns of `tickets` and `users` the bench reads back. */
interface TicketRow {
  id: string;
  workspace_id: string;
  created_at: Date;
}
interface UserRow {
  id: string;
  org_id: string;
  email: string;
}

/** knex's pool, typed `any` by knex: the raw connection runs the EXPLAIN statements. */
interface PoolClient {
  acquireConnection(): Promise<unknown>;
  releaseConnection(conn: unknown): Promise<void>;
}

interface Session {
  cookie: string;
  orgId: string;
  userId: string;
}

function cookieOf(setCookie: string | null): string {
  const m = /pw_session=([^;]+)/.exec(setCookie ?? '');
  if (!m) throw new Error('no session cookie in the answer');
  return `pw_session=${m[1]}`;
}

/** Signs the bench owner up on a fresh database, else logs in. */
async function session(base: string): Promise<Session> {
  let res = await api(base, 'POST', '/v1/auth/login', null, { email: EMAIL, password: PASSWORD });
  if (res.status !== 200) {
    res = await api(base, 'POST', '/v1/auth/signup', null, {
      name: 'Bench Owner',
      email: EMAIL,
      password: PASSWORD,
      organization_name: 'Bench Tickets',
      accept_terms: true,
    });
    if (res.status !== 201) throw new Error(`bench signup failed: ${res.status} ${JSON.stringify(res.json)}`);
  }
  const user = res.json.user as { id: string; org_id: string };
  return { cookie: cookieOf(res.setCookie), orgId: user.org_id, userId: user.id };
}

async function workspaces(base: string, db: Knex, s: Session): Promise<string[]> {
  // The none plan includes one workspace: the bench organization gets the enterprise plan
  // (100 workspaces included) as staff set it, a lifetime plan without a provider subscription.
  await db('organizations')
    .where({ id: s.orgId })
    .update({ plan: 'enterprise', subscription_status: 'lifetime', updated_at: new Date() });
  const list = await api(base, 'GET', '/v1/workspaces?limit=200', s.cookie);
  const ids = (list.json.items as { id: string }[]).map((w) => w.id);
  for (let i = ids.length; i < WORKSPACES; i++) {
    const res = await api(base, 'POST', '/v1/workspaces', s.cookie, {
      name: `Bench workspace ${String(i).padStart(3, '0')}`,
    });
    if (res.status !== 201) throw new Error(`workspace: ${res.status} ${JSON.stringify(res.json)}`);
    ids.push(res.json.id as string);
  }
  return ids.slice(0, WORKSPACES);
}

/**
 * One set-based batch: tickets `from..to` of the organization, spread over the workspaces, the
 * states, origins, categories and priorities, one every 30 seconds back from now.
 */
function seedBatchSql(from: number, to: number): string {
  return `
    with p as (select cast(? as text) as org, cast(? as text[]) as ws, cast(? as text) as usr)
    insert into tickets (id, org_id, workspace_id, origin, customer_email, customer_name, subject, state, category, priority,
      assignee_user_id, labels, language, needs_team_action, message_count, last_message_at, last_customer_message_at,
      first_response_at, closed_at, close_reason, sla_started_at, sla_due_at, public_token_hash, public_token_sealed, reply_token,
      search_text, created_at, updated_at)
    select
      'tkt_seed' || lpad(g::text, 10, '0'),
      p.org,
      p.ws[1 + (g % ${WORKSPACES})],
      (array['email','email','widget','codehost','proactive'])[1 + (g % 5)],
      'customer' || (g % 50000) || '@example.com',
      'Customer ' || (g % 50000),
      s.subject,
      s.state,
      (array['usage','config','docs','bug','feature_request','unknown'])[1 + (g / 7) % 6],
      (array['low','normal','normal','normal','high','urgent'])[1 + (g / 3) % 6],
      case when g % 9 = 0 then p.usr else null end,
      '[]'::jsonb,
      case when g % 5 = 0 then 'it' else 'en' end,
      s.state in ('draft_ready','awaiting_approval','escalated'),
      1 + g % 4,
      s.created_at + interval '10 minutes',
      s.created_at,
      case when s.state in ('answered','needs_info','closed','customer_notified','fixing','releasing') then s.created_at + interval '1 hour' end,
      case when s.state = 'closed' then s.created_at + interval '2 days' end,
      case when s.state = 'closed' then 'resolved' end,
      s.created_at,
      case when s.state in ('answered','needs_info','closed','customer_notified') then null else s.created_at + interval '4 hours' end,
      md5(p.org || g::text) || md5(g::text || p.org),
      'seed',
      'seed' || g,
      s.subject || ' customer' || (g % 50000) || '@example.com Customer ' || (g % 50000),
      s.created_at,
      s.created_at + ((g % 1440) * interval '1 minute')
    from p, generate_series(${from}, ${to}) g
    cross join lateral (select
      now() - ((${TOTAL} - g) * interval '30 seconds') as created_at,
      (array['login','checkout','invoice','export','password','payment','upload','crash','slow','email'])[1 + g % 10] || ' ' ||
        (array['fails','broken','error','question','timeout','blank','missing','wrong','help','issue'])[1 + (g / 10) % 10] || ' #' || g as subject,
      -- mostly closed, like a real backlog; a few per cent in each open state
      (array['closed','closed','closed','closed','closed','closed','closed','closed','answered','customer_notified',
             'received','triage','needs_info','draft_ready','fixing','awaiting_approval','releasing','escalated','closed','closed'])[1 + (g * 7) % 20] as state
    ) s
    on conflict (id) do nothing`;
}

async function seed(db: Knex, s: Session, wsIds: string[]): Promise<number> {
  const { rows } = await db.raw<{ rows: { n: number }[] }>(`select count(*)::int as n from tickets where org_id = ?`, [
    s.orgId,
  ]);
  let have = rows[0].n;
  if (have >= TOTAL) return 0;
  const started = Date.now();
  for (let from = 1; from <= TOTAL; from += BATCH) {
    const to = Math.min(TOTAL, from + BATCH - 1);
    await db.raw(seedBatchSql(from, to), [s.orgId, wsIds, s.userId]);
    process.stderr.write(
      `  seeded ${to.toLocaleString('en')} tickets (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
    );
  }
  await db.raw('analyze tickets');
  const after = (
    await db.raw<{ rows: { n: number }[] }>(`select count(*)::int as n from tickets where org_id = ?`, [s.orgId])
  ).rows[0].n;
  const seeded = after - have;
  have = after;
  process.stderr.write(`  ${have.toLocaleString('en')} tickets in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
  return seeded;
}

/** Tickets the detail measurement reads: a status token sealed with this run's keys (rotated through the API) and a three-message conversation. */
async function detailSample(base: string, db: Knex, s: Session): Promise<string[]> {
  const step = Math.floor(TOTAL / DETAIL_SAMPLE);
  const ids = Array.from({ length: DETAIL_SAMPLE }, (_, i) => `tkt_seed${String(1 + i * step).padStart(10, '0')}`);
  for (const id of ids) {
    // Always: each run of the service has a data directory (and secret keys) of its own.
    {
      const res = await api(base, 'POST', `/v1/tickets/${id}/status-link`, s.cookie, { action: 'rotate' });
      if (res.status !== 200) throw new Error(`rotate ${id}: ${res.status} ${JSON.stringify(res.json)}`);
    }
    const has = await db<{ id: string; ticket_id: string }>('ticket_messages').where({ ticket_id: id }).first('id');
    if (!has) {
      const t = await db<TicketRow>('tickets').where({ id }).first('workspace_id', 'created_at');
      if (!t) throw new Error(`ticket ${id} is not seeded`);
      await db('ticket_messages').insert(
        [0, 1, 2].map((k) => ({
          id: `msg_seed${id.slice(8)}${k}`,
          org_id: s.orgId,
          workspace_id: t.workspace_id,
          ticket_id: id,
          direction: k === 1 ? 'out' : 'in',
          from_address: k === 1 ? 'support@bench.example' : 'customer@example.com',
          to_addresses: JSON.stringify(['x@example.com']),
          cc_addresses: '[]',
          subject: 'Re: bench',
          body_text: 'Hello, this is a message of the conversation. '.repeat(8),
          email_message_id: `<${id}.${k}@bench.example>`,
          delivery_status: k === 1 ? 'sent' : null,
          is_internal_note: false,
          created_at: new Date(new Date(t.created_at).getTime() + k * 60_000),
        })),
      );
    }
  }
  return ids;
}

function connect(): Knex {
  if (!process.env.DATABASE_URL) throw new Error('DATABASE_URL is not set');
  return knexFactory({ client: 'pg', connection: process.env.DATABASE_URL, pool: { min: 0, max: 2 } });
}

export default async function tickets(service: Running): Promise<Measurement[]> {
  if (!process.env.DATABASE_URL) {
    process.stderr.write('tickets: skipped, it needs DATABASE_URL (a Postgres database of its own)\n');
    return [];
  }
  const db = connect();
  try {
    const s = await session(service.url);
    const wsIds = await workspaces(service.url, db, s);
    await seed(db, s, wsIds);
    const sample = await detailSample(service.url, db, s);
    const headers = { cookie: s.cookie };

    // A page deep in the list: follow next_cursor 20 pages in.
    let cursor = '';
    for (let i = 0; i < 20; i++) {
      const page = await api(
        service.url,
        'GET',
        `/v1/tickets?sort=updated${cursor ? `&cursor=${cursor}` : ''}`,
        s.cookie,
      );
      cursor = page.json.next_cursor as string;
    }
    const list = (name: string, qs: string) =>
      measure(`GET /v1/tickets ${name}`, { url: `${service.url}/v1/tickets${qs}`, headers });
    const rows: Measurement[] = [
      // Reference: an authenticated request that reads one row (session lookup + one query).
      await measure('GET /v1/workspaces?limit=1 (reference)', { url: `${service.url}/v1/workspaces?limit=1`, headers }),
    ];
    // BENCH_TICKETS_OFFERED_ONLY=1 skips the closed-loop shapes but the reference and the newest
    // page (a warm-up and the page's CPU); BENCH_TICKETS_ROUNDS repeats the offered rates.
    rows.push(await list('(newest, 50)', ''));
    if (!process.env.BENCH_TICKETS_OFFERED_ONLY) {
      rows.push(
        await list(
          'state[]+origin, sort=updated',
          '?state=triage&state=escalated&state=needs_info&origin=email&sort=updated',
        ),
        await list('priority=urgent, sort=sla', '?priority=urgent&sort=sla'),
        await list('workspace_id, sort=oldest', `?workspace_id=${wsIds[42]}&sort=oldest`),
        await list('assignee=me', '?assignee=me'),
        await list('cursor (page 21, sort=updated)', `?sort=updated&cursor=${cursor}`),
        await list('q=checkout timeout', `?q=${encodeURIComponent('checkout timeout')}`),
      );
      let n = 0;
      rows.push(
        await measure('GET /v1/tickets/{id}', {
          url: `${service.url}/v1/tickets/${sample[0]}`,
          headers,
          requests: [
            { method: 'GET', setupRequest: (req) => ({ ...req, path: `/v1/tickets/${sample[n++ % sample.length]}` }) },
          ],
        }),
      );
    }
    // The target is a rate with a latency: offer it at an even pace and read p99 at that load
    // (at saturation, above, latency is queueing by construction). BENCH_TICKETS_RATES, e.g. 800,1000.
    const rates = (process.env.BENCH_TICKETS_RATES ?? '1000')
      .split(',')
      .map(Number)
      .filter((r) => r > 0);
    for (let round = Number(process.env.BENCH_TICKETS_ROUNDS ?? 1); round > 0; round--) {
      for (const rate of rates) {
        rows.push(
          await measurePaced(`GET /v1/tickets (newest, 50), ${rate.toLocaleString('en')}/s offered evenly`, {
            url: service.url,
            rate,
            request: () => ({ method: 'GET', path: '/v1/tickets', headers }),
          }),
        );
      }
    }
    return rows;
  } finally {
    await db.destroy();
  }
}

// ---- EXPLAIN plans of the list's statements (bench/results/2026-11-26-tickets-explain.md)

/** A value written into SQL text (EXECUTE takes no bind parameters). */
function literal(v: unknown): string {
  if (Array.isArray(v)) return `array[${v.map(literal).join(', ')}]::text[]`;
  if (typeof v === 'number') return String(v);
  return `'${String(v).replaceAll("'", "''")}'`;
}

async function explain(): Promise<void> {
  const db = connect();
  const { listStatement } = await import('../../plugins/tickets/services/ticket-list.js');
  try {
    const org = await db<UserRow>('users').where({ email: EMAIL }).first('org_id', 'id');
    if (!org) throw new Error('run the tickets benchmark first: no bench organization in this database');
    const ws = await db<{ id: string; org_id: string; name: string }>('workspaces')
      .where({ org_id: org.org_id })
      .orderBy('name')
      .select('id');
    const principal = {
      kind: 'session',
      userId: org.id,
      orgId: org.org_id,
      role: 'owner',
      staff: false,
      email: EMAIL,
      locale: 'en',
      workspaceIds: null,
    } as const;
    const restricted = {
      ...principal,
      role: 'reviewer',
      workspaceIds: ws.slice(0, 5).map((w: { id: string }) => w.id),
    } as const;
    const shapes: [string, Record<string, unknown>, typeof principal | typeof restricted][] = [
      ['newest (default)', { sort: 'newest' }, principal],
      [
        'state[] + origin, sort=updated',
        { sort: 'updated', state: ['triage', 'escalated', 'needs_info'], origin: ['email'] },
        principal,
      ],
      ['priority=urgent, sort=sla', { sort: 'sla', priority: ['urgent'] }, principal],
      ['workspace_id, sort=oldest', { sort: 'oldest', workspace_id: ws[42].id }, principal],
      ['assignee=me', { sort: 'newest', assignee: 'me' }, principal],
      ['a member with 5 workspaces', { sort: 'newest' }, restricted],
      ['state=escalated (one state: its own index)', { sort: 'newest', state: ['escalated'] }, principal],
      [
        'needs_team_action=true (partial index tickets_needs_team_idx)',
        { sort: 'newest', needs_team_action: true },
        principal,
      ],
      ['q=checkout timeout (planned per run)', { sort: 'newest', q: 'checkout timeout' }, principal],
    ];
    // Each shape is explained as the service runs it: a prepared statement after five runs (the
    // plan Postgres settles on), the second page through the cursor; full text is planned per run.
    const pool = db.client as PoolClient;
    const conn = (await pool.acquireConnection()) as {
      query(q: string, v?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
    };
    const out: string[] = [];
    try {
      let k = 0;
      const plan = async (title: string, query: Record<string, unknown>, who: typeof principal | typeof restricted) => {
        const first = listStatement(who, { limit: 50, ...query } as never)!;
        const rows = (await conn.query(first.stmt.text, first.values)).rows;
        const last = rows[49];
        const cursor =
          query.cursor ??
          (last ? Buffer.from(JSON.stringify([last.cursor_key, last.id])).toString('base64url') : undefined);
        const page = listStatement(who, { limit: 50, ...query, cursor } as never)!;
        const name = `explain_${k++}`;
        const custom = page.stmt.name === null;
        let res;
        if (custom) res = await conn.query(`explain (analyze, buffers) ${page.stmt.text}`, page.values);
        else {
          await conn.query(`prepare ${name} as ${page.stmt.text}`);
          const args = page.values.map(literal).join(', ');
          for (let i = 0; i < 6; i++) await conn.query(`execute ${name}(${args})`);
          res = await conn.query(`explain (analyze, buffers) execute ${name}(${args})`);
        }
        out.push(
          `### ${title}${query.cursor ? '' : ' (second page, through the cursor)'}\n\n\`\`\`sql\n${page.stmt.text.replace(/\s+/g, ' ').trim()}\n\`\`\`\n\n\`\`\`\n${res.rows.map((r) => r['QUERY PLAN']).join('\n')}\n\`\`\`\n`,
        );
      };
      for (const [title, query, who] of shapes) await plan(title, query, who);
      // A page half a million rows deep costs what the second page costs (the cursor is an index condition).
      const mid = (
        await conn.query(
          `select created_at::text as k, id from tickets where org_id = $1 order by created_at desc, id desc offset 500000 limit 1`,
          [org.org_id],
        )
      ).rows[0];
      await plan(
        'newest, a page 500,000 rows deep',
        { sort: 'newest', cursor: Buffer.from(JSON.stringify([mid.k, mid.id])).toString('base64url') },
        principal,
      );
    } finally {
      await pool.releaseConnection(conn);
    }
    process.stdout.write(out.join('\n'));
  } finally {
    await db.destroy();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href && process.argv[2] === 'explain') {
  explain().catch((err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  });
}
