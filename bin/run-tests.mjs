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
  const m = /#\s*\{\s*total:\s*(\d+)(?:,\s*pass:\s*(\d+))?(?:,\s*fail:\s*(\d+))?[^}]*\}/.exec(tail);
  const total = m ? Number(m[1]) : 0;
  const pass = m ? Number(m[2] ?? 0) : 0;
  const fail = m ? Number(m[3] ?? total - pass) : code === 0 ? 0 : 1;
  console.log(`${pass} passed, ${fail} failed`);
  process.exit(code ?? 1);
});
