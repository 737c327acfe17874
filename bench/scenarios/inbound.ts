// Inbound mail into tickets: signed `mime` deliveries (POST /v1/webhooks/email/mime) from 50
// connections, each message delivered twice (consecutive requests, so the two copies race on
// different connections). Reports emails/s, p50/p99, and the dedupe: every message must open
// exactly one ticket, its copy answering `duplicate`.
//
//   createdb -h 127.0.0.1 -U postgres patchwell_bench_inbound
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/patchwell_bench_inbound npm run bench -- inbound
//
// It starts its own Patchwell (EMAIL_WEBHOOK_SECRET set, plan limits and per-sender limits out of
// the way through a CONFIG_FILE). Target (issue 5): ≥ 300 emails/s, p99 ≤ 200 ms on Postgres.
//
// On Postgres the intake is measured as it is deployed: the api role in its own process, without
// the worker role (on a 2-core machine a worker in the same run would take the CPU the intake is
// measured on). Then a worker process starts on the same database and drains what the intake
// queued (outbox events, diagnosis jobs, auto-replies); the drain rate is printed as well: it
// is the worker capacity a deployment needs per unit of intake. On PGlite (one process) all roles run together.
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import pg from 'pg';
import { api, measure, startPatchwell, type Measurement, type Running } from '../harness.js';

const SECRET = `bench-inbound-${randomBytes(8).toString('hex')}`;
const WORKSPACES = 4;

function message(i: number, to: string, run: string): Buffer {
  return Buffer.from(
    [
      `From: Customer ${i} <customer-${i}@example.com>`,
      `To: ${to}`,
      `Subject: Checkout fails for order ${i}`,
      'Date: Wed, 10 Jan 2024 10:00:00 +0000',
      `Message-ID: <bench-${run}-${i}@mail.example.com>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Hello, when I press Pay on order ${i} nothing happens. I tried two browsers.`,
      '',
    ].join('\r\n'),
  );
}

/** This scenario starts the services it measures. */
export const ownService = true;

/** The plugin options the inbound measurement needs: plan and per-sender limits out of the way. */
export function inboundPluginOptions(): Record<string, unknown> {
  return {
    billing: { options: { plans: { none: { tickets_per_month: 100_000_000, workspaces_included: WORKSPACES } } } },
    inbox: {
      options: {
        senderRateLimit: { max: 1_000_000, windowMinutes: 60 },
        loop: { max: 1_000_000, windowMinutes: 10 },
      },
    },
  };
}

/** The webhook secret the service must be started with (EMAIL_WEBHOOK_SECRET) for these deliveries. */
export const INBOUND_SECRET = SECRET;

export default async function inbound(_shared: Running): Promise<Measurement[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pw-bench-inbound-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ plugins: inboundPluginOptions() }));
  const split = !!process.env.DATABASE_URL;
  const env = { EMAIL_WEBHOOK_SECRET: SECRET, CONFIG_FILE: configFile };
  const service = await startPatchwell(env, split ? 'api' : 'all');
  try {
    const target = await prepareInbound(service.url);
    const row = await measureInbound(service.url, target);
    const rows = [{ ...row, name: `inbound emails/s (each message twice${split ? ', api role' : ''})` }];
    if (split) rows.push(await drain(env));
    return rows;
  } finally {
    await service.stop();
  }
}

export interface InboundTarget {
  cookie: string;
  workspaces: { id: string; address: string }[];
}

/** A new organization with WORKSPACES workspaces, whose inbound addresses the messages go to. */
export async function prepareInbound(url: string): Promise<InboundTarget> {
  const signup = await api(url, 'POST', '/v1/auth/signup', null, {
    name: 'Bench Owner',
    email: `bench-inbound-${randomBytes(4).toString('hex')}@example.com`,
    password: 'bench inbound password 1',
    organization_name: 'Bench Inbound',
    accept_terms: true,
  });
  if (signup.status !== 201) throw new Error(`signup: ${signup.status} ${JSON.stringify(signup.json)}`);
  const cookie = `pw_session=${/pw_session=([^;]+)/.exec(signup.setCookie ?? '')![1]}`;
  const workspaces: { id: string; address: string }[] = [];
  for (let i = 0; i < WORKSPACES; i++) {
    const ws = await api(url, 'POST', '/v1/workspaces', cookie, { name: `Inbound ${i}` });
    workspaces.push({ id: ws.json.id as string, address: ws.json.inbound_address as string });
  }
  return { cookie, workspaces };
}

/**
 * A 2 s warm-up, then the measured run of new messages (each delivered twice); prints the dedupe
 * (every message one ticket, its copy `duplicate`) and the tickets stored.
 */
export async function measureInbound(url: string, { cookie, workspaces }: InboundTarget): Promise<Measurement> {
  const run = randomBytes(4).toString('hex');
  let next = 0;
  const processed = new Map<number, number>();
  const duplicates = new Map<number, number>();
  const other: Record<string, number> = {};
  const request: autocannon.Request = {
    method: 'POST',
    path: '/v1/webhooks/email/mime',
    setupRequest: (req, context) => {
      const k = next++;
      const i = Math.floor(k / 2); // each message twice, back to back
      const to = workspaces[i % WORKSPACES].address;
      const body = message(i, to, run);
      (context as { i: number }).i = i;
      return {
        ...req,
        body,
        headers: {
          'content-type': 'message/rfc822',
          'x-envelope-to': to,
          'x-webhook-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
        },
      };
    },
    onResponse: (status, body, context) => {
      const i = (context as { i: number }).i;
      if (status !== 200) return void (other[`http_${status}`] = (other[`http_${status}`] ?? 0) + 1);
      const result = (JSON.parse(body) as { results: { status: string; reason: string | null }[] }).results[0];
      if (result.status === 'processed') processed.set(i, (processed.get(i) ?? 0) + 1);
      else if (result.reason === 'duplicate') duplicates.set(i, (duplicates.get(i) ?? 0) + 1);
      else other[`${result.status}/${result.reason}`] = (other[`${result.status}/${result.reason}`] ?? 0) + 1;
    },
  };
  // Warm-up (connections, prepared plans), not counted.
  await measure('warm-up', { url, requests: [request], durationS: 2, connections: 10 });
  processed.clear();
  duplicates.clear();
  const row = await measure('POST /v1/webhooks/email/mime (each message twice)', {
    url,
    requests: [request],
  });

  const messages = new Set([...processed.keys(), ...duplicates.keys()]);
  let pairs = 0;
  let deduped = 0;
  let doubleTickets = 0;
  for (const i of messages) {
    const p = processed.get(i) ?? 0;
    const d = duplicates.get(i) ?? 0;
    if (p > 1) doubleTickets++;
    if (p + d === 2) {
      pairs++;
      if (p === 1 && d === 1) deduped++;
    }
  }
  let tickets = 0;
  for (const ws of workspaces) {
    let cursor = '';
    do {
      const page = await api(
        url,
        'GET',
        `/v1/tickets?workspace_id=${ws.id}&limit=200${cursor ? `&cursor=${cursor}` : ''}`,
        cookie,
      );
      tickets += (page.json.items as unknown[]).length;
      cursor = (page.json.next_cursor as string | null) ?? '';
    } while (cursor);
  }
  const opened = [...processed.values()].reduce((a, b) => a + b, 0);
  console.log(
    `\ninbound: ${messages.size} messages answered; ${pairs} delivered twice, ${deduped} of them opened exactly one ticket (dedupe ${pairs ? ((deduped / pairs) * 100).toFixed(2) : '—'} %); ` +
      `${doubleTickets} messages with two tickets; processed answers ${opened}, tickets stored ${tickets} (warm-up included); other answers ${JSON.stringify(other)}`,
  );
  return row;
}

/** What the workers still have to do: outbox events not yet published, jobs queued or running, and diagnoses done. */
export async function backlog(db: pg.Client): Promise<{ outbox: number; jobs: number; done: number }> {
  const { rows } = await db.query<{ outbox: string; jobs: string; done: string }>(
    `select (select count(*) from outbox where published_at is null) as outbox,
            (select count(*) from fix_jobs where status in ('queued','running')) as jobs,
            (select count(*) from fix_jobs where kind = 'diagnose' and status <> 'queued' and status <> 'running') as done`,
  );
  return { outbox: Number(rows[0].outbox), jobs: Number(rows[0].jobs), done: Number(rows[0].done) };
}

/** Starts a worker on the intake's database and times it until no outbox event or job is left waiting. */
async function drain(env: Record<string, string>): Promise<Measurement> {
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  const waiting = () => backlog(db);
  const before = await waiting();
  const started = performance.now();
  const worker = await startPatchwell(env, 'worker,scheduler');
  try {
    let now = before;
    while (now.outbox > 0 || now.jobs > 0) {
      await new Promise((r) => setTimeout(r, 500));
      now = await waiting();
      if (performance.now() - started > 15 * 60_000)
        throw new Error(`drain: still ${now.outbox} events and ${now.jobs} jobs waiting after 15 min`);
    }
    const s = (performance.now() - started) / 1000;
    const diagnosed = now.done - before.done;
    console.log(
      `inbound drain: a worker process published ${before.outbox} queued events and finished ${diagnosed} diagnosis jobs in ${s.toFixed(1)} s (start-up included)`,
    );
    return {
      name: 'worker drain: diagnoses/s (start-up included)',
      requests_per_s: Math.round(diagnosed / s),
      p50_ms: 0,
      p99_ms: 0,
      errors: 0,
      non2xx: 0,
    };
  } finally {
    await worker.stop();
    await db.end();
  }
}
