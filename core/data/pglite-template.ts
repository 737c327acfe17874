import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import knexFactory, { type Knex } from 'knex';
import ClientPgLite from 'knex-pglite';
import { projectRoot } from '../kernel/config.js';
import { migrateLatest } from './migrate.js';

/**
 * A migrated PGlite cluster as a tarball (PGlite's `dumpDataDir`), cached under
 * node_modules/.cache/patchwell by a hash of the migrations and the PGlite version. A fresh
 * embedded database starts from it instead of running initdb and every migration (on this
 * machine ~12 s of initdb alone): `npm install` builds it (postinstall), tests and a first
 * `npm start` load it. A changed migration or PGlite makes a new one; without one, the database
 * is created the slow way, as before.
 */
const cacheDir = resolve(projectRoot, 'node_modules', '.cache', 'patchwell');

export function templateFile(): string {
  const dir = resolve(projectRoot, 'migrations');
  const hash = createHash('sha256');
  const pglite = JSON.parse(readFileSync(resolve(projectRoot, 'node_modules', '@electric-sql', 'pglite', 'package.json'), 'utf8')) as { version: string };
  hash.update(`pglite ${pglite.version}`);
  for (const f of readdirSync(dir).sort()) hash.update(f).update(readFileSync(join(dir, f)));
  return join(cacheDir, `pglite-${hash.digest('hex').slice(0, 16)}.tar`);
}

/** The current template, or null when none was built for these migrations. */
export function cachedTemplate(): Blob | null {
  const file = templateFile();
  return existsSync(file) ? new Blob([readFileSync(file)]) : null;
}

/**
 * Writes the current template into `dir` (an empty data directory) with Node's own file calls, PG_VERSION
 * last, so a start stopped half-way extracts again. PGlite's `loadDataDir` does the same through its
 * emulated file system, at ~2.5 s of CPU more per fresh start (bench/results/2026-11-27-boot-2.md).
 * False when no template is cached.
 */
export function extractTemplate(dir: string): boolean {
  const file = templateFile();
  if (!existsSync(file)) return false;
  const tar = readFileSync(file);
  let last: { path: string; data: Buffer } | null = null;
  for (let at = 0; at + 512 <= tar.length; ) {
    const header = tar.subarray(at, at + 512);
    if (header[0] === 0) break; // the end: two zero blocks
    const field = (from: number, length: number) => header.subarray(from, from + length).toString('latin1').replace(/\0.*$/s, '');
    const name = `${field(345, 155)}${field(345, 155) ? '/' : ''}${field(0, 100)}`;
    const size = parseInt(field(124, 12).trim() || '0', 8);
    const path = join(dir, name.replace(/^\/+/, ''));
    if (!path.startsWith(dir)) throw new Error(`pglite template: entry outside the data directory: ${name}`);
    const type = String.fromCharCode(header[156] || 48);
    const data = tar.subarray(at + 512, at + 512 + size);
    if (type === '5') mkdirSync(path, { recursive: true, mode: 0o750 });
    else if (type === '0') {
      mkdirSync(dirname(path), { recursive: true, mode: 0o750 });
      if (name.replace(/^\/+/, '') === 'PG_VERSION') last = { path, data };
      else writeFileSync(path, data, { mode: 0o600 });
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  if (!last) throw new Error('pglite template: no PG_VERSION in the tarball');
  writeFileSync(last.path, last.data, { mode: 0o600 });
  return true;
}

let building: Promise<Blob> | null = null;

/** The current template, built and cached first when there is none. */
export function pgliteTemplate(): Promise<Blob> {
  return (building ??= (async () => cachedTemplate() ?? build(templateFile()))());
}

async function build(file: string): Promise<Blob> {
  const pglite = new PGlite();
  const db: Knex = knexFactory({ client: ClientPgLite, dialect: 'postgres', connection: () => ({ pglite }) } as Knex.Config);
  await migrateLatest(db);
  // A checkpoint first, so that opening the copy replays no WAL.
  await pglite.exec('CHECKPOINT');
  const dump = await pglite.dumpDataDir('none');
  await db.destroy();
  mkdirSync(dirname(file), { recursive: true });
  // Written aside and renamed: parallel test files may build it at the same time.
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()));
  renameSync(tmp, file);
  return dump;
}
