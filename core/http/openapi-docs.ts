/** The routes that serve the OpenAPI document and the interactive docs page. */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import type { ResponseToolkit, Server } from '@hapi/hapi';
import Inert from '@hapi/inert';
import Joi from 'joi';
import type { OpenApiDocument } from './openapi-types.js';

const requireCjs = createRequire(import.meta.url);

// ---------------------------------------------------------------------------------------------
// Routes: the document and the docs page (swagger-ui-dist, served locally; no CDN)

// The package's folder, found without importing its main module (which evaluates the whole
// 1 MB Swagger UI bundle: a fifth of a second at every start).
const swaggerUiDir = dirname(requireCjs.resolve('swagger-ui-dist/package.json'));

const INITIALIZER = `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: '/v1/openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    persistAuthorization: true,
    displayRequestDuration: true,
    filter: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout'
  });
};
`;

// The docs page runs Swagger UI's own files and talks to this origin only (the document, "try it out").
const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; " +
  "connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

const documentSchema = Joi.object({
  openapi: Joi.string().required(),
  info: Joi.object().unknown().required(),
  paths: Joi.object().unknown().required(),
})
  .unknown()
  .description('An OpenAPI 3.1 document');

/**
 * `GET /v1/openapi.json` (operation `getOpenApiDocument`, built on the first call, then cached
 * with an ETag) and `GET /docs` (Swagger UI from swagger-ui-dist, assets under
 * `/docs/assets/{file*}` via @hapi/inert). All public. Resolves once inert is registered; the
 * routes exist as soon as it returns (inert's decorations are added synchronously).
 */
export async function registerOpenApiRoutes(server: Server, getDocument: () => OpenApiDocument): Promise<void> {
  const registered = server.registrations as Record<string, unknown>;
  const pendingInert = registered['@hapi/inert'] ? undefined : server.register(Inert);

  let cached: { json: string; etag: string; title: string } | undefined;
  const load = () => {
    if (cached) return cached;
    const doc = getDocument();
    const json = JSON.stringify(doc);
    cached = { json, etag: createHash('sha256').update(json).digest('base64url').slice(0, 27), title: doc.info.title };
    return cached;
  };

  server.route([
    {
      method: 'GET',
      path: '/v1/openapi.json',
      options: {
        id: 'getOpenApiDocument',
        tags: ['openapi'],
        description: 'The OpenAPI 3.1 document of this service',
        notes: 'Built from the schemas that validate requests; lists the operations of the enabled plugins.',
        auth: false,
        cors: { origin: ['*'], credentials: false },
        response: { schema: documentSchema, sample: 0 },
        handler: (_request, h: ResponseToolkit) => {
          const { json, etag } = load();
          return h.response(json).type('application/json; charset=utf-8').etag(etag);
        },
      },
    },
    {
      method: 'GET',
      path: '/docs',
      options: {
        auth: false,
        handler: (_request, h: ResponseToolkit) =>
          h
            .response(docsPage(load().title))
            .type('text/html; charset=utf-8')
            .header('Content-Security-Policy', DOCS_CSP),
      },
    },
    {
      // Replaces the dist's initializer (it points at the petstore) for its index.html too.
      method: 'GET',
      path: '/docs/assets/swagger-initializer.js',
      options: {
        auth: false,
        handler: (_request, h: ResponseToolkit) =>
          h.response(INITIALIZER).type('application/javascript; charset=utf-8'),
      },
    },
    {
      method: 'GET',
      path: '/docs/assets/{file*}',
      options: {
        auth: false,
        cache: { expiresIn: 24 * 60 * 60 * 1000, privacy: 'public' },
        // The dist's own HTML pages (index.html, oauth2-redirect.html) are served too: the same policy.
        ext: { onPreResponse: { method: (request, h) => withCsp(request.response, DOCS_CSP, h) } },
        handler: { directory: { path: swaggerUiDir, index: false, listing: false, redirectToSlash: false } },
      },
    },
  ]);

  await pendingInert;
}

function withCsp(response: unknown, csp: string, h: ResponseToolkit) {
  const res = response as { isBoom?: boolean; header?: (k: string, v: string) => unknown };
  if (!res.isBoom && res.header) res.header('Content-Security-Policy', csp);
  return h.continue;
}

function docsPage(title: string): string {
  const t = escapeHtml(`${title} API`);
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${t}</title>
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
  <link rel="stylesheet" href="/docs/assets/index.css">
  <link rel="icon" type="image/png" href="/docs/assets/favicon-32x32.png" sizes="32x32">
</head>
<body>
  <div id="swagger-ui"></div>
  <noscript>${t}: the document is at <a href="/v1/openapi.json">/v1/openapi.json</a>.</noscript>
  <script src="/docs/assets/swagger-ui-bundle.js" charset="UTF-8"></script>
  <script src="/docs/assets/swagger-initializer.js" charset="UTF-8"></script>
</body>
</html>
`;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
