#!/usr/bin/env node
/**
 * `npm start`: brings dist/ up to date with the sources (bin/build.mjs compiles only what changed,
 * so an edited file is picked up at the next start) and runs dist/bin/patchwell.js with the same
 * arguments. Compiled JavaScript loads without tsx's loader thread and its resolution of every
 * import: that halves the process's start (bench/results/2026-11-27-boot-2.md).
 */
import { buildDist } from './build.mjs';

const { compiled, removed, ms } = await buildDist();
if (compiled || removed) process.stderr.write(`patchwell: compiled ${compiled} changed files into dist/ (${ms} ms)\n`);
// Stack traces name the TypeScript sources and their lines, as they did under tsx.
process.setSourceMapsEnabled(true);
await import('../dist/bin/patchwell.js');
