// `npm run bench [-- scenario…]`: starts a bare hapi server and Patchwell, runs the scenarios and
// prints requests/s, p50, p99 and the ratio to bare hapi. Set DATABASE_URL / AMQP_URL to measure
// against the real services; BENCH_DURATION_S sets the length of each measurement (default 10).
import { readdirSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import {
  BENCH_EXCHANGE,
  measure,
  printTable,
  startBareHapi,
  startPatchwell,
  type Measurement,
  type Running,
} from './harness.js';
import { purgeQueues } from './purge-queues.js';

type Scenario = (service: Running) => Promise<Measurement[]>;
/** A scenario module: its default export, and `ownService = true` when it starts the Patchwell it measures. */
interface ScenarioModule {
  default: Scenario;
  ownService?: boolean;
}

const dir = join(dirname(fileURLToPath(import.meta.url)), 'scenarios');
const wanted = process.argv.slice(2);
const names = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => f.replace(/\.ts$/, ''))
  .filter((n) => wanted.length === 0 || wanted.includes(n));
if (names.length === 0) {
  console.error(`no scenario matches ${wanted.join(', ')}`);
  process.exit(2);
}

const bare = await startBareHapi();
const ceiling = await measure('bare hapi GET /', { url: bare.url });
await bare.stop();

// Each scenario gets a Patchwell of its own, so no other instance (and no worker role) shares
// the machine or the database while it is measured.
const rows: Measurement[] = [];
try {
  for (const name of names) {
    const mod = (await import(pathToFileURL(join(dir, `${name}.ts`)).href)) as ScenarioModule;
    const service = mod.ownService ? { url: '', stop: async () => {} } : await startPatchwell();
    try {
      rows.push(...(await mod.default(service)));
    } finally {
      await service.stop();
    }
  }
} finally {
  // The run's queues (every service declares its consumers' queues on the run's exchange): left on the
  // broker, a few hundred quorum queues of earlier runs stopped it accepting connections.
  // Only the run's own exchange: a BUS_EXCHANGE given by hand may be a real deployment's.
  if (process.env.AMQP_URL && BENCH_EXCHANGE.startsWith('pw_bench_')) {
    const why = await purgeQueues([`${BENCH_EXCHANGE}.`], { settleMs: 10_000 }).then(
      (deleted) => (deleted === null ? 'rabbitmqctl did not answer' : null),
      (err: unknown) => String(err),
    );
    if (why) console.error(`bench: the run's queues were not deleted (${why})`);
  }
}
console.log(
  `\nPatchwell benchmarks (${process.env.DATABASE_URL ? 'Postgres' : 'PGlite'}, ${process.env.AMQP_URL ? 'RabbitMQ' : 'in-process bus'}), ${Number(process.env.BENCH_DURATION_S ?? 10)} s each, 50 connections\n`,
);
printTable([ceiling, ...rows], ceiling);
