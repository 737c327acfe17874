import t from 'tap';
import ts from 'typescript';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { projectRoot } from '../../core/kernel/config.js';

/**
 * Dependencies point inward (../shared/ARCHITECTURE.md, "Shape"): core/ imports nothing above it,
 * and a plugin reaches another plugin through the container or the bus, never through its files.
 * bin/patchwell.ts is the composition root that hands the registries to createApp.
 */

interface Edge {
  /** Importing file, project-relative with `/`. */
  from: string;
  /** The file (or folder) the import resolves to, project-relative with `/`. */
  to: string;
  /** The import as written. */
  spec: string;
}

/** The Vite app is its own package (own tsconfig and node_modules); the service never imports it. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', join('plugins', 'console', 'app')]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(projectRoot, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name) && !SKIPPED_DIRS.has(path)) out.push(...sourceFiles(path));
    } else if (/\.(c|m)?tsx?$/.test(entry.name)) {
      out.push(path);
    }
  }
  return out;
}

const posix = (path: string) => path.split(sep).join('/');

/** Static imports, `export … from`, `import type` and `import('…')` with a literal, through TypeScript's own scanner. */
function relativeImports(file: string): Edge[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(join(projectRoot, file), 'utf8'), true, true);
  return importedFiles
    .filter(({ fileName }) => fileName.startsWith('.'))
    .map(({ fileName }) => ({
      from: posix(file),
      to: posix(relative(projectRoot, resolve(projectRoot, dirname(file), fileName))),
      spec: fileName,
    }));
}

const edgesUnder = (dir: string) => sourceFiles(dir).flatMap(relativeImports);
const show = (edges: Edge[]) => edges.map((e) => `${e.from} imports '${e.spec}' (${e.to})`);
const topDir = (path: string) => path.split('/')[0];
/** `plugins/tickets/services/x.ts` → `tickets`; `plugins/index.ts` (the registry) → null. */
const ownerOf = (path: string) => (path.split('/').length > 2 ? path.split('/')[1] : null);
/** A plugin's or adapter's tests and scripts are tooling around it, not code the service loads. */
const isTooling = (path: string) => /^(plugins|adapters)\/[^/]+\/(test|scripts)\//.test(path);

const ABOVE_CORE = ['plugins', 'adapters', 'examples', 'bin', 'test', 'bench'];
const TOOLING = ['bin', 'test', 'examples', 'bench'];

/**
 * Plugin tests that import another plugin's own code (not its test kit). Each is reasoned; a stale
 * entry fails too, so the list stays the truth. Keyed by the importing file and the plugin reached.
 */
const CROSS_PLUGIN_TEST_IMPORTS: { file: string; reaches: string; why: string }[] = [
  {
    file: 'plugins/agency/test/reports.test.ts',
    reaches: 'mail',
    why: "rebuilds the stored report mail with the mail plugin's `outgoing` (what the channel adapter is handed) to check the PDF",
  },
  {
    file: 'plugins/proactive/test/patterns.test.ts',
    reaches: 'fixes',
    why: "builds a diagnosis job's payload with the fixes plugin's JobPayloads (fixes is off in tests) to see a shared fix in it",
  },
];

t.test('core imports nothing from plugins, adapters, examples, bin, test or bench', (t) => {
  const edges = edgesUnder('core');
  t.ok(edges.length > 50, `the scan sees core's imports (${edges.length})`);
  const outward = edges.filter((e) => ABOVE_CORE.includes(topDir(e.to)));
  t.same(show(outward), [], "core takes the plugin and adapter registries from createApp's caller (bin/patchwell.ts)");
  t.end();
});

t.test("a plugin reaches no other plugin's files, no adapter and no tooling", (t) => {
  const edges = edgesUnder('plugins').filter((e) => ownerOf(e.from) && !isTooling(e.from));
  t.ok(edges.length > 200, `the scan sees the plugins' imports (${edges.length})`);
  const crossing = edges.filter((e) => topDir(e.to) === 'plugins' && ownerOf(e.to) !== ownerOf(e.from));
  t.same(show(crossing), [], 'other plugins are reached through the container (Cradle) or the bus');
  const outward = edges.filter((e) => ['adapters', ...TOOLING].includes(topDir(e.to)));
  t.same(show(outward), [], 'adapters are reached through the extension points in core/contracts');
  t.end();
});

t.test("a plugin's tests use another plugin's test kit, not its code, except where listed", (t) => {
  const edges = edgesUnder('plugins').filter((e) => isTooling(e.from) && topDir(e.to) === 'plugins');
  const crossing = edges.filter((e) => ownerOf(e.to) !== null && ownerOf(e.to) !== ownerOf(e.from));
  t.ok(
    crossing.some((e) => /^plugins\/fixes\/test\//.test(e.to)),
    "the fix loop's scenario kit is shared (plugins/fixes/test/helpers.ts)",
  );
  const intoCode = crossing.filter((e) => !/^plugins\/[^/]+\/test\//.test(e.to));
  const listed = (e: Edge) => CROSS_PLUGIN_TEST_IMPORTS.some((x) => x.file === e.from && x.reaches === ownerOf(e.to));
  t.same(
    show(intoCode.filter((e) => !listed(e))),
    [],
    "a test needing another plugin's service resolves it from the app's container",
  );
  const stale = CROSS_PLUGIN_TEST_IMPORTS.filter(
    (x) => !intoCode.some((e) => e.from === x.file && ownerOf(e.to) === x.reaches),
  );
  t.same(
    stale.map((x) => `${x.file} → ${x.reaches}`),
    [],
    'every listed exception still exists (remove the entry otherwise)',
  );
  t.end();
});

t.test('an adapter imports no plugin and no tooling', (t) => {
  const edges = edgesUnder('adapters').filter((e) => ownerOf(e.from) && !isTooling(e.from));
  t.ok(edges.length > 50, `the scan sees the adapters' imports (${edges.length})`);
  const outward = edges.filter((e) => ['plugins', ...TOOLING].includes(topDir(e.to)));
  t.same(show(outward), [], 'an adapter depends on core/contracts only');
  t.end();
});

t.test('the scanner sees every kind of import it must judge', (t) => {
  const { importedFiles } = ts.preProcessFile(
    [
      "import { a } from '../../plugins/a/index.js';",
      "import type { B } from '../../adapters/b/index.js';",
      "export { c } from './c.js';",
      "const d = await import('../../plugins/d/index.js');",
      "// import { e } from '../../plugins/e/index.js';",
    ].join('\n'),
    true,
    true,
  );
  t.same(
    importedFiles.map((f) => f.fileName),
    ['../../plugins/a/index.js', '../../adapters/b/index.js', './c.js', '../../plugins/d/index.js'],
    'static, type-only, re-export and dynamic imports; a commented-out import is not one',
  );
  t.end();
});
