#!/usr/bin/env node
// Runs the tap suite and prints a plain closing line `N passed, N failed` after tap's own summary.
// Arguments are passed to tap (e.g. `npm test -- test/api/auth`).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const tapBin = require.resolve('tap/package.json').replace(/package\.json$/, 'dist/esm/run.mjs');
const args = process.argv.slice(2);
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
