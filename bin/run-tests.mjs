#!/usr/bin/env node
// Runs the tap suite and prints a plain closing line `N passed, N failed` after tap's own summary.
// Arguments are passed to tap (e.g. `npm test -- test/api/auth`).
// The fault suite (test/chaos/, issue 31) restarts and kills the shared services, so it is never part of a plain run:
// `--chaos` (npm run chaos) runs only its files, one at a time (all of test/chaos/*.test.ts, or the files given).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tapBin = require.resolve('tap/package.json').replace(/package\.json$/, 'dist/esm/run.mjs');
let args = process.argv.slice(2);
if (args.includes('--chaos')) {
  args = args.filter((a) => a !== '--chaos');
  const files = args.filter((a) => !a.startsWith('-'));
  const all = readdirSync(new URL('../test/chaos/', import.meta.url))
    .filter((f) => f.endsWith('.test.ts'))
    .sort()
    .map((f) => `test/chaos/${f}`);
  args = ['--jobs=1', ...args.filter((a) => a.startsWith('-')), ...(files.length ? files : all)];
} else {
  // An --exclude given here replaces tap's default one (fixtures, dist), so that one is repeated.
  if (!args.some((a) => a.startsWith('--exclude'))) args.push('--exclude=**/@(fixture*(s)|dist)/**');
  args.push('--exclude=test/chaos/**');
}

// .taprc swaps tap's ts-node plugin for tsx. tap rebuilds its runtime when the plugin list
// changes, but only after it has computed the loaders of the run it is starting, so the first run
// after `npm ci` would load both. Build first whenever .taprc changed since the last build.
const marker = require.resolve('tap/package.json').replace(/package\.json$/, '.patchwell-taprc-built');
const taprc = createHash('sha256')
  .update(readFileSync(new URL('../.taprc', import.meta.url)))
  .digest('hex');
if (!existsSync(marker) || readFileSync(marker, 'utf8') !== taprc) {
  const built = spawnSync(process.execPath, [tapBin, 'build'], { stdio: ['ignore', 'inherit', 'inherit'] });
  if (built.status !== 0) {
    console.log('0 passed, 1 failed');
    process.exit(1);
  }
  writeFileSync(marker, taprc);
}
const child = spawn(process.execPath, [tapBin, ...(args.length ? args : [])], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, TAP_REPORTER: process.env.TAP_REPORTER ?? 'tap' },
});

let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString()).slice(-4000);
});
child.on('close', (code) => {
  // tap's last summary line: `# { total: 10, pass: 8, fail: 1, skip: 1 }`
  const m = /#\s*\{([^}]*)\}\s*(?:#[^\n]*\s*)*$/.exec(tail.trimEnd() + '\n') ?? /#\s*\{\s*total:[^}]*\}/.exec(tail);
  const counts = {};
  for (const [, k, v] of (m?.[0] ?? '').matchAll(/(\w+):\s*(\d+)/g)) counts[k] = Number(v);
  const pass = counts.pass ?? 0;
  let fail = counts.fail ?? 0;
  if (code !== 0 && fail === 0) fail = 1;
  const skip = counts.skip ?? 0;
  console.log(`${pass} passed, ${fail} failed${skip ? `, ${skip} skipped` : ''}`);
  process.exit(code ?? 1);
});
