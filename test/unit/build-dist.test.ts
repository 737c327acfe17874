import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import t from 'tap';
import { buildDist } from '../../bin/build.mjs';

/** A checkout of a few files: what `npm start` compiles into dist/ before it runs (bin/build.mjs). */
function checkout(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'patchwell-build-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

t.test('npm start runs what was compiled, and an edited source is compiled again at the next start', async (t) => {
  const root = checkout({
    'package.json': '{"type":"module"}',
    'tsconfig.json': JSON.stringify({ compilerOptions: { useDefineForClassFields: false } }),
    'core/greeting.ts':
      "import data from './greeting.json' with { type: 'json' };\n" +
      'export class Greeter { private readonly word: string = data.word; hello(who: string): string { return `${this.word} ${who}`; } }\n',
    'core/greeting.json': '{"word":"hello"}',
    'core/greeting.test.ts': 'throw new Error("tests are not built");\n',
    'plugins/console/app/index.html': '<!doctype html>',
    'migrations/0001_core_start.ts': 'export async function up(): Promise<void> {}\n',
  });
  t.teardown(() => rmSync(root, { recursive: true, force: true }));

  const first = await buildDist(root);
  t.equal(first.compiled, 2, 'both sources compiled, the test file left out');
  const { Greeter } = (await import(pathToFileURL(join(root, 'dist/core/greeting.js')).href)) as {
    Greeter: new () => { hello(who: string): string };
  };
  t.equal(new Greeter().hello('Ada'), 'hello Ada', 'the compiled module runs on plain Node and finds its JSON');
  t.ok(lstatSync(join(root, 'dist/plugins/console/app')).isSymbolicLink(), 'the Vite app is linked, not compiled');
  t.notOk(existsSync(join(root, 'dist/core/greeting.test.js')), 'no test file in dist/');
  t.match(
    readFileSync(join(root, 'dist/core/greeting.js'), 'utf8'),
    /sourceMappingURL=greeting\.js\.map/,
    'stack traces map to the source',
  );

  t.equal((await buildDist(root)).compiled, 0, 'nothing changed: nothing compiled');

  const later = new Date(Date.now() + 5000);
  writeFileSync(join(root, 'core/greeting.ts'), 'export const edited = true;\n');
  utimesSync(join(root, 'core/greeting.ts'), later, later);
  t.equal((await buildDist(root)).compiled, 1, 'the edited file only');
  t.match(readFileSync(join(root, 'dist/core/greeting.js'), 'utf8'), /edited = true/, 'its new text');

  rmSync(join(root, 'migrations/0001_core_start.ts'));
  const pruned = await buildDist(root);
  t.equal(pruned.removed, 2, 'the output of a deleted migration goes (and its map)');
  t.notOk(existsSync(join(root, 'dist/migrations/0001_core_start.js')), 'so no stale migration is ever applied');
});
