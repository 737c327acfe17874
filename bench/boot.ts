/**
 * Boot time (issue 28): the service as `npm start` runs it, until it prints `ready:`, on a fresh
 * data directory from the migrated template, on a fresh one without it (PGLITE_TEMPLATE=false:
 * initdb and every migration), and on a restart of the first. Interleaved, BENCH_BOOT_ROUNDS
 * rounds (default 3); prints each and the median, with the database phase as the service logs it.
 *
 *   npx tsx bench/boot.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgliteTemplate } from '../core/data/pglite-template.js';
import { freePort } from '../plugins/console/test/browser.js';
import { startService } from './service.js';

const ROUNDS = Number(process.env.BENCH_BOOT_ROUNDS ?? 3);

interface Boot {
  readyMs: number;
  databaseMs: number;
}

async function boot(dataDir: string, env: Record<string, string> = {}): Promise<Boot> {
  const t0 = performance.now();
  const { stop, log } = await startService(await freePort(), dataDir, env);
  const readyMs = performance.now() - t0;
  await stop();
  const databaseMs = Number(/"ms":(\d+),"msg":"database: ready/.exec(log)?.[1] ?? NaN);
  return { readyMs, databaseMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (b: Boot) => `ready ${(b.readyMs / 1000).toFixed(1)} s (database ${(b.databaseMs / 1000).toFixed(1)} s)`;

async function main(): Promise<void> {
  await pgliteTemplate();
  const rows: Record<'fresh' | 'fresh, no template' | 'restart', Boot[]> = {
    fresh: [],
    'fresh, no template': [],
    restart: [],
  };
  for (let round = 1; round <= ROUNDS; round++) {
    const a = mkdtempSync(join(tmpdir(), 'patchwell-boot-'));
    const b = mkdtempSync(join(tmpdir(), 'patchwell-boot-'));
    try {
      rows.fresh.push(await boot(a));
      rows['fresh, no template'].push(await boot(b, { PGLITE_TEMPLATE: 'false' }));
      rows.restart.push(await boot(a));
      console.log(
        `round ${round}: fresh ${fmt(rows.fresh.at(-1)!)}; no template ${fmt(rows['fresh, no template'].at(-1)!)}; restart ${fmt(rows.restart.at(-1)!)}`,
      );
    } finally {
      rmSync(a, { recursive: true, force: true });
      rmSync(b, { recursive: true, force: true });
    }
  }
  for (const [name, xs] of Object.entries(rows)) {
    console.log(
      `${name.padEnd(20)} median ready ${(median(xs.map((x) => x.readyMs)) / 1000).toFixed(1)} s, database ${(median(xs.map((x) => x.databaseMs)) / 1000).toFixed(1)} s`,
    );
  }
}

await main();
