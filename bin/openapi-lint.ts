#!/usr/bin/env node
/**
 * `npm run openapi:lint`: builds the OpenAPI document from a service booted on the embedded
 * defaults (PGlite in memory, every built-in plugin, nothing listening), writes it to
 * dist/openapi.json and lints it with @redocly/cli (.redocly.yaml: recommended) and
 * @stoplight/spectral-cli (.spectral.yaml: spectral:oas, failing on warnings). Exits non-zero when
 * either reports a problem. `--write-only` writes the document and stops.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../core/kernel/config.js';
import { createApp } from '../core/kernel/app.js';
import { builtinAdapters } from '../adapters/index.js';
import { builtinPlugins } from '../plugins/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const DOCUMENT_FILE = join(root, 'dist/openapi.json');

/** The document of a service on the embedded defaults (the environment is not read: no DATABASE_URL). */
export async function buildDefaultDocument(): Promise<unknown> {
  const config = loadConfig({ env: {}, overrides: { dataDir: ':memory:', log: { level: 'silent' } } });
  const app = await createApp(config, { plugins: builtinPlugins, adapters: builtinAdapters });
  try {
    await app.start({ listen: false, scheduler: false });
    const res = await app.server.inject('/v1/openapi.json');
    if (res.statusCode !== 200)
      throw new Error(`GET /v1/openapi.json answered ${res.statusCode}: ${res.payload.slice(0, 500)}`);
    return JSON.parse(res.payload) as unknown;
  } finally {
    await app.stop();
  }
}

function lint(label: string, bin: string, args: string[]): boolean {
  process.stdout.write(`\n== ${label}\n`);
  const run = spawnSync(join(root, 'node_modules/.bin', bin), args, { cwd: root, stdio: 'inherit' });
  if (run.error) process.stderr.write(`${label}: ${run.error.message}\n`);
  return run.status === 0;
}

async function main(): Promise<void> {
  const doc = await buildDefaultDocument();
  mkdirSync(dirname(DOCUMENT_FILE), { recursive: true });
  writeFileSync(DOCUMENT_FILE, JSON.stringify(doc, null, 2) + '\n');
  const file = relative(root, DOCUMENT_FILE);
  process.stdout.write(`wrote ${file}\n`);
  if (process.argv.includes('--write-only')) return;
  const redocly = lint('redocly (recommended)', 'redocly', [
    'lint',
    file,
    '--config',
    '.redocly.yaml',
    '--format',
    'stylish',
  ]);
  const spectral = lint('spectral (spectral:oas)', 'spectral', [
    'lint',
    file,
    '--ruleset',
    '.spectral.yaml',
    '--fail-severity',
    'warn',
  ]);
  process.stdout.write(
    `\nopenapi lint: redocly ${redocly ? 'clean' : 'FAILED'}, spectral ${spectral ? 'clean' : 'FAILED'}\n`,
  );
  if (!redocly || !spectral) process.exit(1);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      process.stderr.write(`openapi-lint: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(1);
    },
  );
}
