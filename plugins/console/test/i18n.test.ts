import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { appDir } from '../build.js';

type Tree = { [k: string]: string | Tree };
const read = (file: string) => JSON.parse(readFileSync(join(appDir, 'src', 'i18n', file), 'utf8')) as Tree;
// The foundation's catalogue plus every area's (tickets.en.json, …), merged as src/i18n/texts-<locale>.ts does.
const catalogues = readdirSync(join(appDir, 'src', 'i18n')).filter((f) => f.endsWith('.json'));
const load = (locale: string) =>
  Object.assign(
    {},
    ...catalogues.filter((f) => f === `${locale}.json` || f.endsWith(`.${locale}.json`)).map(read),
  ) as Tree;
function keys(tree: Tree, prefix = ''): string[] {
  return Object.entries(tree).flatMap(([k, v]) =>
    typeof v === 'string' ? [`${prefix}${k}`] : keys(v, `${prefix}${k}.`),
  );
}
function value(tree: Tree, key: string): string | Tree | undefined {
  return key
    .split('.')
    .reduce<string | Tree | undefined>(
      (node, part) => (node && typeof node === 'object' ? node[part] : undefined),
      tree,
    );
}

const en = load('en');
const it = load('it');

t.test('every text of the console exists in English and Italian', (t) => {
  const enKeys = keys(en).sort();
  const itKeys = keys(it).sort();
  t.same(
    enKeys.filter((k) => !itKeys.includes(k)),
    [],
    'no English text lacks its Italian',
  );
  t.same(
    itKeys.filter((k) => !enKeys.includes(k)),
    [],
    'no Italian text lacks its English',
  );
  for (const k of enKeys) {
    const vars = (s: string) => [...s.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    t.same(vars(value(it, k) as string), vars(value(en, k) as string), `${k}: the same placeholders`);
  }
  t.end();
});

t.test('two catalogues of one locale never define the same top-level key (the merge would hide one)', (t) => {
  for (const locale of ['en', 'it']) {
    const owners = new Map<string, string>();
    const clashes: string[] = [];
    for (const f of catalogues.filter((f) => f === `${locale}.json` || f.endsWith(`.${locale}.json`))) {
      for (const k of Object.keys(read(f))) {
        if (owners.has(k)) clashes.push(`${k}: ${owners.get(k)} and ${f}`);
        owners.set(k, f);
      }
    }
    t.same(clashes, [], locale);
  }
  t.end();
});

t.test('every key the pages ask for by its literal name exists', (t) => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) files.push(join(dir, e.name));
    }
  };
  walk(join(appDir, 'src'));
  const missing: string[] = [];
  let seen = 0;
  for (const file of files) {
    const src = readFileSync(file, 'utf8');
    for (const m of src.matchAll(/\bt\('([a-zA-Z][\w.]*)'/g)) {
      seen++;
      // A plural key exists as its forms (`key_one`, `key_other`), as i18next looks them up.
      if (typeof value(en, m[1]) !== 'string' && typeof value(en, `${m[1]}_other`) !== 'string')
        missing.push(`${m[1]} (${file.slice(appDir.length + 1)})`);
    }
  }
  t.ok(seen > 100, `${seen} literal keys checked`);
  t.same(missing, []);
  t.end();
});
