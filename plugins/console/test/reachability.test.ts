import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { appDir } from '../build.js';

// Issue 27's acceptance: every operation of the OpenAPI document is reachable from the console,
// except the public (no authentication), webhook, job-token and MCP ones. This file lists the
// operations the console's client calls, compares them with the document, and fails when an
// operation has no console path (a new route needs its page).

interface Operation {
  operationId: string;
  tags?: string[];
  security?: Record<string, string[]>[];
}
const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const doc = JSON.parse(readFileSync(join(appDir, 'src', 'api', 'openapi.json'), 'utf8')) as {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  security?: Record<string, string[]>[];
};

const operations = new Map<string, Operation>();
for (const [path, item] of Object.entries(doc.paths)) {
  for (const method of METHODS) if (item[method]) operations.set(`${method.toUpperCase()} ${path}`, item[method]);
}

/**
 * Public operations (no scheme, or an empty requirement: callable without signing in, e.g. the code host's
 * callback or a signed file link), webhooks (no scheme either), job-token and MCP operations: no console page calls them.
 */
function outOfScope(path: string, op: Operation): boolean {
  const requirements = op.security ?? doc.security ?? [];
  const schemes = requirements.flatMap((s) => Object.keys(s));
  const anonymous = requirements.length === 0 || requirements.some((s) => Object.keys(s).length === 0);
  return anonymous || schemes.every((s) => s === 'jobToken') || path === '/v1/mcp' || (op.tags ?? []).includes('mcp');
}

/** Every call of the app's typed client, `api.GET('/v1/…'` and the browser navigations `href('/v1/…'`. */
function consoleCalls(): { call: string; file: string }[] {
  const calls: { call: string; file: string }[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) {
        const src = readFileSync(join(dir, e.name), 'utf8');
        const file = join(dir, e.name).slice(appDir.length + 1);
        for (const m of src.matchAll(/\bapi\.(GET|POST|PUT|PATCH|DELETE)\(\s*'([^']+)'/g))
          calls.push({ call: `${m[1]} ${m[2]}`, file });
        for (const m of src.matchAll(/\bhref\(\s*'(\/v1\/[^']+)'/g)) calls.push({ call: `GET ${m[1]}`, file });
      }
    }
  };
  walk(join(appDir, 'src'));
  return calls;
}

const calls = consoleCalls();
const reached = new Set(calls.map((c) => operations.get(c.call)?.operationId).filter((id): id is string => !!id));
const unreached = [...operations.entries()]
  .filter(([key, op]) => !outOfScope(key.split(' ')[1], op) && !reached.has(op.operationId))
  .map(([, op]) => op.operationId)
  .sort();

t.test('every call of the console names an operation of the document', (t) => {
  t.ok(calls.length > 50, `${calls.length} calls found`);
  t.same(
    calls.filter((c) => !operations.has(c.call)).map((c) => `${c.call} (${c.file})`),
    [],
  );
  t.end();
});

t.test('every operation in scope has a console path', (t) => {
  t.ok(operations.size > 200, `${operations.size} operations in the document`);
  t.same(unreached, [], 'an operation without a console page: add the page (docs/console.md, conventions)');
  t.end();
});
