// The job bus end to end: events written to the outbox in their transactions (like every
// plugin's), published by the relay with publisher confirms, consumed idempotently (inbox row in
// the handler's transaction). Reports jobs/s from the first commit to the last consumption, and
// the p50/p99 latency from commit to consumer. Target (issue 7): ≥ 500 jobs/s end to end.
//
//   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test AMQP_URL=amqp://guest:guest@127.0.0.1:5672 npm run bench -- jobs
//
// It runs its own service in this process (a schema and an exchange of its own, dropped after).
// BENCH_JOBS sets the number of events (default 5000), BENCH_JOBS_PER_TX the events per
// transaction (default 1: one event per business change, the common case).
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import knexFactory from 'knex';
import { KEYS } from '../../core/kernel/keys.js';
import { createApp } from '../../core/kernel/app.js';
import { builtinAdapters } from '../../adapters/index.js';
import { builtinPlugins } from '../../plugins/index.js';
import { loadConfig } from '../../core/kernel/config.js';
import type { Outbox } from '../../core/bus/outbox.js';
import type { Measurement, Running } from '../harness.js';
import { arrivals } from '../fixtures/jobs-plugin.js';

const TOTAL = Number(process.env.BENCH_JOBS ?? 5000);
const PER_TX = Math.max(1, Number(process.env.BENCH_JOBS_PER_TX ?? 1));
const WRITERS = 20;

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : 0;
}

/** This scenario starts the services it measures. */
export const ownService = true;

export default async function jobs(_shared: Running): Promise<Measurement[]> {
  const suffix = randomBytes(4).toString('hex');
  const config = loadConfig({
    overrides: {
      dataDir: process.env.DATABASE_URL ? `/tmp/pw-bench-jobs-${suffix}` : ':memory:',
      database: { schema: process.env.DATABASE_URL ? `bench_jobs_${suffix}` : null },
      bus: { exchange: `pw_bench_jobs_${suffix}`, deleteQueuesOnStop: true },
      log: { level: 'warn' },
      plugins: {
        'bench-jobs': { module: fileURLToPath(new URL('../fixtures/jobs-plugin.ts', import.meta.url)) },
        fixes: { enabled: false },
        runner: { enabled: false },
        mcp: { enabled: false },
      },
    },
  });
  const app = await createApp(config, { plugins: builtinPlugins, adapters: builtinAdapters });
  await app.start({ listen: false, scheduler: false });
  const outbox = app.container.resolve<Outbox>(KEYS.outbox);
  const latencies: number[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  let resolveAll!: () => void;
  const all = new Promise<void>((r) => (resolveAll = r));
  arrivals.onArrival = (id, latencyMs) => {
    if (seen.has(id)) return void duplicates++;
    seen.add(id);
    latencies.push(latencyMs);
    if (seen.size === TOTAL) resolveAll();
  };
  try {
    const started = performance.now();
    let next = 0;
    const writer = async () => {
      while (next < TOTAL) {
        const n = Math.min(PER_TX, TOTAL - next);
        next += n;
        await app.db.transaction(async (trx) => {
          for (let i = 0; i < n; i++) await outbox.add(trx, 'bench.job', { sent_at: Date.now() });
        });
      }
    };
    await Promise.all(Array.from({ length: WRITERS }, writer));
    const written = performance.now();
    const timeout = setTimeout(() => resolveAll(), 120_000);
    await all;
    clearTimeout(timeout);
    const seconds = (performance.now() - started) / 1000;
    latencies.sort((a, b) => a - b);
    console.log(
      `\njobs: ${TOTAL} events (${PER_TX} per transaction, ${WRITERS} writers) written in ${((written - started) / 1000).toFixed(1)} s; ` +
        `${seen.size} consumed in ${seconds.toFixed(1)} s; ${duplicates} duplicate deliveries; ${TOTAL - seen.size} missing`,
    );
    return [
      {
        name: `jobs/s end to end (outbox → ${app.bus.kind} → consumer)`,
        requests_per_s: Math.round(seen.size / seconds),
        p50_ms: Math.round(percentile(latencies, 50)),
        p99_ms: Math.round(percentile(latencies, 99)),
        errors: TOTAL - seen.size,
        non2xx: 0,
      },
    ];
  } finally {
    arrivals.onArrival = null;
    await app.stop();
    if (config.database.url && config.database.schema) {
      const admin = knexFactory({ client: 'pg', connection: config.database.url, pool: { min: 0, max: 1 } });
      await admin.raw(`drop schema if exists "${config.database.schema}" cascade`).finally(() => admin.destroy());
    }
  }
}
