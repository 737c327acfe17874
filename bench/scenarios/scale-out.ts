// Scale-out (issue 31): ingest and inbound on one Patchwell process, then on the layout an operator
// grows into (docs/operations.md): the api role as two processes (API_PROCESSES=2, with the scheduler
// in their primary) and two worker processes, on the same Postgres and RabbitMQ, in the same run.
// Prints each layout's figures and the ratio, scaled-out over one process.
//
//   createdb -h 127.0.0.1 -U postgres patchwell_bench_scale
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/patchwell_bench_scale AMQP_URL=amqp://guest:guest@127.0.0.1:5672 \
//     BENCH_DURATION_S=5 npm run bench -- scale-out
//
// Both layouts share one database and one prepared organization (the same key ring and webhook secret
// in every process); between them the workers drain what the first layout queued, so the second
// does not inherit its backlog (BENCH_SCALE_DRAIN_S caps the wait, default 60).
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startPatchwell, type Measurement, type Running } from '../harness.js';
import { benchSecretKeys, ingestPluginOptions, measureShape, prepareIngest, vacuumChurned } from './ingest.js';
import { backlog, INBOUND_SECRET, inboundPluginOptions, measureInbound, prepareInbound } from './inbound.js';

/** This scenario starts the services it measures. */
export const ownService = true;

interface Layout {
  name: string;
  start(env: Record<string, string>): Promise<Running[]>;
}

const LAYOUTS: Layout[] = [
  { name: '1 process', start: async (env) => [await startPatchwell(env, 'all')] },
  {
    name: '2 api + 2 workers',
    start: async (env) => {
      const api = await startPatchwell({ ...env, API_PROCESSES: '2' }, 'api,scheduler');
      // Health answers as soon as the first api process listens; give the second its start-up.
      await new Promise((r) => setTimeout(r, 5000));
      const workers = [await startPatchwell(env, 'worker'), await startPatchwell(env, 'worker')];
      return [api, ...workers];
    },
  },
];

export default async function scaleOut(_shared: Running): Promise<Measurement[]> {
  if (!process.env.DATABASE_URL || !process.env.AMQP_URL) {
    console.log('\nscale-out: skipped (needs DATABASE_URL and AMQP_URL: several processes share them)');
    return [];
  }
  const dir = mkdtempSync(join(tmpdir(), 'pw-bench-scale-'));
  const configFile = join(dir, 'config.json');
  writeFileSync(configFile, JSON.stringify({ plugins: { ...ingestPluginOptions(), ...inboundPluginOptions() } }));
  const env = { CONFIG_FILE: configFile, SECRET_KEYS: benchSecretKeys(), EMAIL_WEBHOOK_SECRET: INBOUND_SECRET };

  const rows: Measurement[] = [];
  const byLayout: Record<string, { ingest: number; inbound: number }> = {};
  let prepared: {
    ingest: Awaited<ReturnType<typeof prepareIngest>>;
    inbound: Awaited<ReturnType<typeof prepareInbound>>;
  } | null = null;
  for (const layout of LAYOUTS) {
    const processes = await layout.start(env);
    try {
      const url = processes[0].url;
      prepared ??= { ingest: await prepareIngest(url), inbound: await prepareInbound(url) };
      await vacuumChurned();
      const ingest = await measureShape(
        url,
        prepared.ingest.cookie,
        prepared.ingest.workspaceId,
        prepared.ingest.endpoint(10),
      );
      await drainBacklog(layout.name);
      const inbound = await measureInbound(url, prepared.inbound);
      await drainBacklog(layout.name);
      byLayout[layout.name] = { ingest: ingest.requests_per_s, inbound: inbound.requests_per_s };
      rows.push({ ...ingest, name: `${layout.name}: ${ingest.name}` });
      rows.push({ ...inbound, name: `${layout.name}: inbound emails/s (each message twice)` });
    } finally {
      for (const p of processes.reverse()) await p.stop();
    }
  }
  const [one, many] = LAYOUTS.map((l) => byLayout[l.name]);
  const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : '—');
  console.log(
    `\nscale-out ratio (${LAYOUTS[1].name} over ${LAYOUTS[0].name}): ingest ${ratio(many.ingest, one.ingest)}×, ` +
      `inbound ${ratio(many.inbound, one.inbound)}×`,
  );
  return rows;
}

/** Waits until the workers have published every outbox event and finished every job (capped), and says how long it took. */
async function drainBacklog(layout: string): Promise<void> {
  const db = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await db.connect();
  try {
    const cap = Number(process.env.BENCH_SCALE_DRAIN_S ?? 60) * 1000;
    const started = performance.now();
    const first = await backlog(db);
    let now = first;
    while ((now.outbox > 0 || now.jobs > 0) && performance.now() - started < cap) {
      await new Promise((r) => setTimeout(r, 500));
      now = await backlog(db);
    }
    const s = ((performance.now() - started) / 1000).toFixed(1);
    console.log(
      `  ${layout}: backlog ${first.outbox} events, ${first.jobs} jobs; after ${s} s ${now.outbox} events, ${now.jobs} jobs left ` +
        `(${now.done - first.done} diagnoses finished meanwhile)`,
    );
  } finally {
    await db.end();
  }
}
