#!/usr/bin/env node
/**
 * `npm run openapi:errors`: derives, for every route, the error answers its own code can give, and
 * writes them to core/http/route-errors.generated.json (operationId → [{status, code}]), which the
 * OpenAPI builder turns into error responses (docs/openapi.md, "Errors").
 *
 * How: the TypeScript compiler API builds the program of core/, plugins/ and adapters/; each route
 * options literal (`{ id, …, handler }`) is found, and its handler walked: every call is resolved
 * with the type checker (functions, methods, arrow functions kept in variables or properties; a
 * call through an interface or abstract method goes to every class or object literal in the
 * program whose type is assignable to it) and walked in turn, transitively. Each error factory
 * call is recorded with its status and code: `httpError(status, code, …)` (so `conflict`,
 * `notFound`, `invalidRequest` and every other helper built on it), `new Boom.Boom(…, {statusCode,
 * data: {code}})`, `Boom.<factory>()`. Literal arguments are followed into helpers (`refuse(422,
 * 'x', …)`), conditionals give each branch, literal-union types give their members, and a code
 * read from a returned object (`guard.code`, `view.demo.start_blocker`) is found in the returns of
 * the call that produced it. Errors thrown inside `try` whose `catch` does not rethrow the caught
 * error (and inside `promise.catch(() => …)`) are dropped.
 *
 * What the walk cannot know is listed under `unresolved` (site, status, expression): the route
 * then declares those codes itself (`plugins.patchwell.errors`), and test/unit/route-errors.test.ts
 * fails until it does.
 *
 * `--check` compares instead of writing (exit 1 when the file is stale).
 */
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RouteErrorAnalysis } from './route-errors/analysis.js';
import { createProgram } from './route-errors/program.js';
import type { RouteErrorsFile } from './route-errors/types.js';

export type { RouteError, RouteErrorsFile, UnresolvedError } from './route-errors/types.js';
export { RouteErrorAnalysis };

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const GENERATED_FILE = join(ROOT, 'core/http/route-errors.generated.json');

/** Derives the file's content from the code under `root`. */
export function deriveRouteErrors(root = ROOT): RouteErrorsFile {
  return new RouteErrorAnalysis(createProgram(root), root).analyze();
}

export function serialize(file: RouteErrorsFile): string {
  return JSON.stringify(file, null, 2) + '\n';
}

function main(): void {
  const check = process.argv.includes('--check');
  const started = Date.now();
  const derived = serialize(deriveRouteErrors());
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const current = existsSync(GENERATED_FILE) ? readFileSync(GENERATED_FILE, 'utf8') : '';
  const parsed = JSON.parse(derived) as RouteErrorsFile;
  const unresolved = Object.entries(parsed.unresolved);
  for (const [id, list] of unresolved) {
    for (const u of list)
      process.stderr.write(`unresolved  ${id}: ${u.status ?? '?'} ${u.code ?? '?'} at ${u.file} (${u.expression})\n`);
  }
  if (check) {
    if (current !== derived) {
      process.stderr.write(`${relative(process.cwd(), GENERATED_FILE)} is stale: run npm run openapi:errors\n`);
      process.exit(1);
    }
    process.stdout.write(
      `route errors are current (${Object.keys(parsed.operations).length} operations, ${seconds} s)\n`,
    );
    return;
  }
  if (current !== derived) writeFileSync(GENERATED_FILE, derived);
  const what = `${Object.keys(parsed.operations).length} operations, ${unresolved.length} with unresolved codes (${seconds} s)`;
  process.stdout.write(
    `${current === derived ? 'unchanged' : 'wrote'} ${relative(process.cwd(), GENERATED_FILE)}: ${what}\n`,
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (err: unknown) {
    process.stderr.write(`route-errors: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  }
}
