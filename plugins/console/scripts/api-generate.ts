/**
 * `npm run api:generate`: writes the service's OpenAPI document to
 * plugins/console/app/src/api/openapi.json and its types to src/api/schema.d.ts.
 * `--check` writes nothing and exits 1 when either file differs from what the code builds now.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { builtinAdapters } from '../../../adapters/index.js';
import { buildServiceDocument, documentPath, generateSchemaTypes, schemaPath } from '../api-document.js';
import { builtinPlugins } from '../../index.js';

const check = process.argv.includes('--check');
const started = Date.now();
const document = await buildServiceDocument({ plugins: builtinPlugins, adapters: builtinAdapters });
const schema = await generateSchemaTypes(document);

const stale: string[] = [];
for (const [path, text] of [
  [documentPath, document],
  [schemaPath, schema],
] as const) {
  const current = await readFile(path, 'utf8').catch(() => null);
  if (current === text) continue;
  stale.push(relative(process.cwd(), path));
  if (!check) await writeFile(path, text);
}
if (check && stale.length) {
  console.error(`stale: ${stale.join(', ')} (run npm run api:generate)`);
  process.exit(1);
}
console.log(
  `${check ? 'checked' : stale.length ? `wrote ${stale.join(', ')}` : 'up to date'} in ${Date.now() - started} ms`,
);
process.exit(0);
