/**
 * The console's bundle: built by Vite into `app/dist/<hash of the app's sources>/`, so a bundle
 * is current exactly when a directory with the current hash exists. Built at install (the root
 * `postinstall`), by `npm run console:build`, or by the plugin at start when missing or stale.
 * Vite runs in a child process (its own memory, no network); builds of other hashes are pruned.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const appDir = join(dirname(fileURLToPath(import.meta.url)), 'app');
export const distRoot = join(appDir, 'dist');

/** What the bundle is made of (sources, HTML, config and the locked dependency versions). */
const INPUTS = ['src', 'index.html', 'vite.config.ts', 'tsconfig.json', 'package-lock.json'];
/** Files that never reach the bundle: the OpenAPI document (types only use schema.d.ts at check time). */
const IGNORED = new Set(['src/api/openapi.json']);

async function listFiles(path: string): Promise<string[]> {
  const info = await stat(path).catch(() => null);
  if (!info) return [];
  if (info.isFile()) return [path];
  const out: string[] = [];
  for (const entry of (await readdir(path)).sort()) out.push(...(await listFiles(join(path, entry))));
  return out;
}

/** sha256 of the inputs' paths and contents, shortened: the name of the build directory. */
export async function sourceHash(): Promise<string> {
  const hash = createHash('sha256');
  for (const input of INPUTS) {
    for (const file of await listFiles(join(appDir, input))) {
      const rel = relative(appDir, file);
      if (IGNORED.has(rel)) continue;
      hash
        .update(rel)
        .update('\0')
        .update(await readFile(file))
        .update('\0');
    }
  }
  return hash.digest('hex').slice(0, 16);
}

export interface Bundle {
  hash: string;
  dir: string;
}

/** The current bundle, or null when it was never built for these sources. */
export async function currentBundle(): Promise<Bundle | null> {
  const hash = await sourceHash();
  const dir = join(distRoot, hash);
  return existsSync(join(dir, 'index.html')) ? { hash, dir } : null;
}

/** Whether the console's own packages are installed (Vite among them). */
export function viteEntry(): string | null {
  try {
    const require = createRequire(join(appDir, 'package.json'));
    return join(dirname(require.resolve('vite/package.json')), 'bin', 'vite.js');
  } catch {
    return null;
  }
}

export class ConsoleBuildError extends Error {
  override name = 'ConsoleBuildError';
}

/**
 * Builds the bundle unless the current one exists. Writes into a temporary directory and
 * renames it into place, so a concurrent builder or a reader never sees half a bundle.
 */
export async function buildBundle(
  opts: { force?: boolean; log?: (msg: string) => void } = {},
): Promise<Bundle & { built: boolean; ms: number }> {
  const started = Date.now();
  const hash = await sourceHash();
  const dir = join(distRoot, hash);
  if (!opts.force && existsSync(join(dir, 'index.html'))) return { hash, dir, built: false, ms: 0 };
  const vite = viteEntry();
  if (!vite)
    throw new ConsoleBuildError(
      'the console is not installed: run `npm ci --prefix plugins/console/app` (the root npm ci does it)',
    );
  await mkdir(distRoot, { recursive: true });
  const tmp = join(distRoot, `.tmp-${hash}-${process.pid}-${Date.now()}`);
  opts.log?.(`building the console (${hash})`);
  const output = await run(
    process.execPath,
    [vite, 'build', '--outDir', tmp, '--emptyOutDir', '--logLevel', 'warn'],
    appDir,
  );
  if (!existsSync(join(tmp, 'index.html'))) {
    await rm(tmp, { recursive: true, force: true });
    throw new ConsoleBuildError(`vite build failed:\n${output.slice(-4000)}`);
  }
  if (opts.force) await rm(dir, { recursive: true, force: true });
  try {
    await rename(tmp, dir);
  } catch {
    // Another process built the same sources first: theirs is identical.
    await rm(tmp, { recursive: true, force: true });
  }
  await prune(hash);
  return { hash, dir, built: true, ms: Date.now() - started };
}

/** Removes the builds of other sources (and abandoned temporary directories over an hour old). */
async function prune(keep: string): Promise<void> {
  for (const entry of await readdir(distRoot).catch(() => [] as string[])) {
    if (entry === keep) continue;
    const path = join(distRoot, entry);
    if (entry.startsWith('.tmp-')) {
      const info = await stat(path).catch(() => null);
      if (info && Date.now() - info.mtimeMs < 3_600_000) continue;
    }
    await rm(path, { recursive: true, force: true });
  }
}

function run(cmd: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve) => {
    let out = '';
    const child = spawn(cmd, args, {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('error', (err) => resolve(`${out}\n${err.message}`));
    child.on('close', () => resolve(out));
  });
}
