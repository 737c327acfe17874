/**
 * Boot time (issue 28): the service until it prints `ready:`, on a fresh data directory from the
 * migrated template, on a fresh one without it (PGLITE_TEMPLATE=false: initdb and every migration),
 * and on a restart of the first; each as `npm start` runs it (bin/start.mjs: the compiled dist/) and
 * from the sources under tsx, interleaved, BENCH_BOOT_ROUNDS rounds (default 3). Prints each and the
 * median: wall time, CPU time of the process (steadier than wall time on a shared machine), and the
 * database phase as the service logs it.
 *
 *   npx tsx bench/boot.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pgliteTemplate } from '../core/data/pglite-template.js';
import { buildDist } from '../bin/build.mjs';
import { freePort } from '../plugins/console/test/browser.js';
import { startService, TSX_ENTRY } from './service.js';

const ROUNDS = Number(process.env.BENCH_BOOT_ROUNDS ?? 3);
const ENTRIES = { compiled: ['bin/start.mjs'], tsx: TSX_ENTRY } as const;

interface Boot {
  readyMs: number;
  cpuMs: number;
  databaseMs: number;
}

/** User and system time of a process so far (Linux /proc; NaN elsewhere). */
function cpuMsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime, stime in USER_HZ (100)
  } catch {
    return NaN;
  }
}

async function boot(dataDir: string, entry: readonly string[], env: Record<string, string> = {}): Promise<Boot> {
  const t0 = performance.now();
  const { stop, log, pid } = await startService(await freePort(), dataDir, env, [...entry]);
  const readyMs = performance.now() - t0;
  const cpuMs = cpuMsOf(pid);
  await stop();
  const databaseMs = Number(/"ms":(\d+),"msg":"database: ready/.exec(log)?.[1] ?? NaN);
  return { readyMs, cpuMs, databaseMs };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const fmt = (b: Boot) => `ready ${s(b.readyMs)} (cpu ${s(b.cpuMs)}, database ${s(b.databaseMs)})`;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

async function main(): Promise<void> {
  await pgliteTemplate();
  await buildDist();
  const rows = new Map<string, Boot[]>();
  const add = (name: string, b: Boot) => {
    rows.set(name, [...(rows.get(name) ?? []), b]);
    console.log(`  ${name.padEnd(32)} ${fmt(b)} load ${load()}`);
  };
  for (let round = 1; round <= ROUNDS; round++) {
    console.log(`round ${round}`);
    for (const [how, entry] of Object.entries(ENTRIES)) {
      const a = mkdtempSync(join(tmpdir(), 'patchwell-boot-'));
      const b = mkdtempSync(join(tmpdir(), 'patchwell-boot-'));
      try {
        add(`${how}: fresh`, await boot(a, entry));
        add(`${how}: fresh, no template`, await boot(b, entry, { PGLITE_TEMPLATE: 'false' }));
        add(`${how}: restart`, await boot(a, entry));
      } finally {
        rmSync(a, { recursive: true, force: true });
        rmSync(b, { recursive: true, force: true });
      }
    }
  }
  for (const [name, xs] of rows) {
    const m = (k: keyof Boot) => s(median(xs.map((x) => x[k])));
    console.log(`${name.padEnd(32)} median ready ${m('readyMs')}, cpu ${m('cpuMs')}, database ${m('databaseMs')}`);
  }
}

await main();
