/**
 * `npm run console:build`: builds the console's bundle unless the current one exists
 * (`--force` builds anyway). Prints the time taken and the size of the first load.
 */
import { gzipSync } from 'node:zlib';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildBundle } from '../build.js';

const bundle = await buildBundle({ force: process.argv.includes('--force'), log: (m) => console.log(m) });
const html = await readFile(join(bundle.dir, 'index.html'), 'utf8');
// The first load: the scripts and module preloads index.html names, and the English texts the start loads
// (src/i18n/index.ts); the pages load later, on demand.
const assets = await readdir(join(bundle.dir, 'assets'));
const first = [
  ...[...html.matchAll(/(?:src|href)="\/(assets\/[^"]+\.js)"/g)].map((m) => m[1]),
  ...assets.filter((f) => /^texts-en-[\w-]+\.js$/.test(f)).map((f) => `assets/${f}`),
];
let firstGz = 0;
for (const f of first) firstGz += gzipSync(await readFile(join(bundle.dir, f))).length;
let allGz = 0;
for (const f of assets) if (f.endsWith('.js')) allGz += gzipSync(await readFile(join(bundle.dir, 'assets', f))).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
const how = bundle.built ? `built in ${(bundle.ms / 1000).toFixed(1)} s` : 'is current';
console.log(`console ${how} (${bundle.hash}): first load ${kb(firstGz)} gzipped JS, all pages ${kb(allGz)}`);
