import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import Inert from '@hapi/inert';
import { definePlugin } from '../../core/kernel/plugin.js';
import { httpError, notFound } from '../../core/http/errors.js';
import { escapeHtml } from '../../core/http/html.js';
import { buildBundle, currentBundle, type Bundle } from './build.js';

/**
 * The operator console (docs/console.md): the Vite + React app in `app/`, served at `/` and at
 * every path no other route answers (hapi picks the most specific route, so the API, /docs,
 * status pages, the widget and the local code host and payment pages keep theirs). Paths under
 * the API's prefixes that no route answers stay the API's JSON 404. No API operation of its own.
 */
export default definePlugin({
  name: 'console',
  version: '1.0.0',
  async register(ctx) {
    const log = ctx.log;
    const csp = contentSecurityPolicy(ctx.config.server.publicBaseUrl);
    let pending: Promise<Bundle> | null = null;
    let failure: Error | null = null;
    // The bundle of the sources on disk: found, or built once (concurrent requests share the build).
    const bundle = () =>
      (pending ??= (async () => {
        const found = await currentBundle();
        if (found) return found;
        const built = await buildBundle({ log: (m) => log.info(m) });
        log.info({ ms: built.ms, hash: built.hash }, 'console built');
        return built;
      })().catch((err: Error) => {
        failure = err;
        pending = null;
        log.error({ err }, 'the console could not be built');
        throw err;
      }));

    // A service that serves pages starts building a missing or stale bundle right away, without
    // holding up the start. Under the test runner the first page request builds it instead.
    if (ctx.roles.has('api') && !process.env.TAP) ctx.onStart(() => void bundle().catch(() => {}));

    const apiPrefixes = reservedPrefixes(ctx.server);

    const page = async (request: Request, h: ResponseToolkit) => {
      const path = request.path;
      const first = path.split('/')[1] ?? '';
      if (apiPrefixes().has(first))
        throw httpError(404, 'not_found', `No route for ${request.method.toUpperCase()} ${path}`);
      let b: Bundle;
      try {
        b = await bundle();
      } catch {
        return unavailable(h, failure);
      }
      // A file of the bundle's root (favicon and the like); other paths with an extension are not pages.
      if (/\.[A-Za-z0-9]{1,8}$/.test(path)) {
        const file = path.slice(1);
        if (!/^[A-Za-z0-9._-]+$/.test(file) || file === 'index.html') throw notFound('file');
        return h.file(join(b.dir, file), { confine: b.dir }).header('cache-control', 'public, max-age=3600');
      }
      const html = await readFile(join(b.dir, 'index.html')).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        // Another process built newer sources and pruned this bundle: find (or build) the current one.
        pending = null;
        return readFile(join((await bundle()).dir, 'index.html'));
      });
      return h
        .response(html)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-cache')
        .header('content-security-policy', csp)
        .header('x-content-type-options', 'nosniff')
        .header('x-frame-options', 'DENY')
        .header('referrer-policy', 'same-origin');
    };

    if (!(ctx.server.registrations as Record<string, unknown>)['@hapi/inert']) await ctx.server.register(Inert);

    ctx.server.route([
      {
        method: 'GET',
        path: '/assets/{file*}',
        options: {
          auth: false,
          handler: async (request, h) => {
            let b: Bundle;
            try {
              b = await bundle();
            } catch {
              return unavailable(h, failure);
            }
            const param: unknown = request.params.file;
            const file = typeof param === 'string' ? param : '';
            if (!/^[A-Za-z0-9._-]+$/.test(file)) throw notFound('file');
            // Hashed names: a file never changes under its name.
            return h
              .file(join(b.dir, 'assets', file), { confine: join(b.dir, 'assets') })
              .header('cache-control', 'public, max-age=31536000, immutable')
              .header('x-content-type-options', 'nosniff');
          },
        },
      },
      { method: 'GET', path: '/', options: { auth: false, handler: page } },
      { method: 'GET', path: '/{path*}', options: { auth: false, handler: page } },
    ]);
  },
});

/**
 * First path segments of every route that is not the console's (`v1`, `docs`, `status`, `pay`,
 * `codehost`, `widget.js`, …), read from the route table once routing starts: an unknown path
 * under them is the API's 404, never the console's page.
 */
function reservedPrefixes(server: Server): () => Set<string> {
  let cached: Set<string> | null = null;
  return () => {
    if (cached) return cached;
    const set = new Set<string>(['v1']);
    for (const route of server.table()) {
      if (route.path === '/' || route.path === '/{path*}' || route.path === '/assets/{file*}') continue;
      const first = route.path.split('/')[1] ?? '';
      if (first && !first.startsWith('{')) set.add(first);
    }
    cached = set;
    return set;
  };
}

/** Only this origin (and the public base URL's, when the console is reached by another name). */
export function contentSecurityPolicy(publicBaseUrl: string): string {
  let publicOrigin: string;
  try {
    publicOrigin = new URL(publicBaseUrl).origin;
  } catch {
    publicOrigin = '';
  }
  const self = publicOrigin ? `'self' ${publicOrigin}` : "'self'";
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    `img-src ${self} data:`,
    "font-src 'self'",
    `connect-src ${self}`,
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

function unavailable(h: ResponseToolkit, failure: Error | null) {
  const why = failure ? escapeHtml(failure.message.split('\n')[0]) : 'The console is not built yet.';
  return h
    .response(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Patchwell</title></head><body>
<h1>The console is unavailable</h1><p>${why}</p><p>Run <code>npm run console:build</code>, then reload. The API is up at <a href="/docs">/docs</a>.</p>
</body></html>`,
    )
    .code(503)
    .type('text/html; charset=utf-8')
    .header('retry-after', '30')
    .header('cache-control', 'no-store');
}
