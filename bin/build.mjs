#!/usr/bin/env node
/**
 * Compiles the service's TypeScript into dist/ (issue 28, "boot in seconds"): each file on its own
 * with esbuild (what tsx does at every start), the same tree and module graph, so dist/bin/patchwell.js
 * runs on plain Node. Only files whose source is newer than their output are compiled again, outputs
 * of deleted sources are removed, and every other file (JSON, assets, the console's Vite app) is
 * linked, so paths taken from `import.meta.url` find what they find in the sources.
 *
 *   node bin/build.mjs        (`npm run build`; postinstall; `npm start` runs it first through bin/start.mjs)
 *
 * Plain JavaScript on purpose: it runs before anything can compile TypeScript.
 */
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const checkout = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** The trees that run in production (tests, bench and fixtures stay sources). */
const ROOTS = ['core', 'plugins', 'adapters', 'migrations', 'bin', 'examples'];
/** Linked whole: not compiled by us (the console app is Vite's), or not needed to run (tests, fixtures). */
const LINKED_DIRS = new Set(['plugins/console/app']);
const SKIPPED_DIRS = new Set(['node_modules', 'test', 'fixtures']);

const isSource = (name) => /\.(ts|mts)$/.test(name) && !/\.d\.m?ts$/.test(name) && !/\.test\.m?ts$/.test(name);
const outName = (name) => name.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs');

/** tsconfig.json's options as esbuild reads them (class fields, module syntax), so output matches tsx's. */
function tsconfigRaw(root) {
  const { compilerOptions } = JSON.parse(readFileSync(join(root, 'tsconfig.json'), 'utf8'));
  return { compilerOptions };
}

/**
 * Walks the source trees of `root` (the checkout) and brings its dist/ up to date. Returns how many
 * files were compiled and removed. Writes each output aside and renames it, so a process reading
 * dist/ never sees half a file.
 */
export async function buildDist(root = checkout) {
  const began = Date.now();
  const distDir = join(root, 'dist');
  const target = `node${process.versions.node}`;
  const pending = [];
  let compiled = 0;
  let removed = 0;
  const expected = new Set();

  const compile = (transformSync, raw, src, out) => {
    const rel = relative(dirname(out), src);
    const result = transformSync(readFileSync(src, 'utf8'), {
      loader: 'ts',
      format: 'esm',
      target,
      tsconfigRaw: raw,
      sourcemap: 'external',
      sourcefile: rel,
      sourcesContent: false,
    });
    const base = out.slice(dirname(out).length + 1);
    const tmp = `${out}.${process.pid}.tmp`;
    writeFileSync(`${out}.map`, result.map);
    writeFileSync(tmp, `${result.code}//# sourceMappingURL=${base}.map\n`);
    renameSync(tmp, out);
    compiled++;
  };

  const link = (src, out) => {
    const target = relative(dirname(out), src);
    const current = lstatSync(out, { throwIfNoEntry: false });
    if (current?.isSymbolicLink() && existsSync(out)) return;
    if (current) rmSync(out, { recursive: true, force: true });
    symlinkSync(target, out);
  };

  const walk = (relDir) => {
    const srcDir = join(root, relDir);
    const outDir = join(distDir, relDir);
    mkdirSync(outDir, { recursive: true });
    for (const entry of readdirSync(srcDir, { withFileTypes: true })) {
      const rel = join(relDir, entry.name);
      const src = join(root, rel);
      if (entry.isDirectory()) {
        if (SKIPPED_DIRS.has(entry.name)) continue;
        if (LINKED_DIRS.has(rel)) {
          expected.add(join(distDir, rel));
          link(src, join(distDir, rel));
        } else walk(rel);
        expected.add(join(distDir, rel));
      } else if (isSource(entry.name)) {
        const out = join(outDir, outName(entry.name));
        expected.add(out).add(`${out}.map`);
        const done = statSync(out, { throwIfNoEntry: false });
        if (!done || done.mtimeMs < statSync(src).mtimeMs) pending.push([src, out]);
      } else if (!/\.(ts|mts)$/.test(entry.name)) {
        const out = join(outDir, entry.name);
        expected.add(out);
        link(src, out);
      }
    }
  };

  // What dist/ holds for a source that is gone (a deleted migration above all) must go too.
  const prune = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (expected.has(path)) {
        if (entry.isDirectory() && !entry.isSymbolicLink()) prune(path);
        continue;
      }
      rmSync(path, { recursive: true, force: true });
      removed++;
    }
  };

  for (const r of ROOTS.filter((dir) => existsSync(join(root, dir)))) {
    walk(r);
    prune(join(distDir, r));
  }
  if (pending.length) {
    // Loaded only when there is work: a start with nothing to compile stays a few stat calls.
    const { transformSync } = await import('esbuild');
    const raw = tsconfigRaw(root);
    for (const [src, out] of pending) compile(transformSync, raw, src, out);
  }
  return { compiled, removed, ms: Date.now() - began };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { compiled, removed, ms } = await buildDist();
  console.log(`dist/: ${compiled} files compiled, ${removed} removed (${ms} ms)`);
}
