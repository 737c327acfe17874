import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ServerRoute } from '@hapi/hapi';
import type { WidgetIntake } from '../services/intake.js';
import { keyOf } from './context.js';

export const CORS_METHODS = 'GET, POST, OPTIONS';
export const CORS_HEADERS = 'content-type, x-widget-key';

/**
 * Not API operations (outside the OpenAPI document): the embeddable script, and the CORS
 * preflight of the public widget operations. A preflight carries no body and no custom header
 * values, so the script puts the key in the query (`?key=`); the preflight answers with CORS
 * headers only for that install's allowed origins.
 */
export function assetRoutes(intake: () => WidgetIntake, scriptFile: URL, maxAgeSeconds: number): ServerRoute[] {
  const script = readFileSync(scriptFile);
  const etag = createHash('sha256').update(script).digest('hex').slice(0, 32);
  return [
    {
      method: 'GET',
      path: '/widget.js',
      options: {
        auth: false,
        handler: (_request, h) =>
          h
            .response(script)
            .type('application/javascript; charset=utf-8')
            .etag(etag)
            .header('cache-control', `public, max-age=${maxAgeSeconds}, stale-while-revalidate=${maxAgeSeconds}`)
            .header('cross-origin-resource-policy', 'cross-origin'),
      },
    },
    {
      method: 'OPTIONS',
      path: '/v1/widget/{operation*}',
      options: {
        auth: false,
        handler: async (request, h) => {
          const origin = request.headers.origin as string | undefined;
          const svc = intake();
          const ws = await svc.install(keyOf(request));
          if (!svc.admit(ws, { origin, ip: null, userAgent: undefined }, false)) {
            return h.response().code(403).header('vary', 'Origin');
          }
          return h
            .response()
            .code(204)
            .header('access-control-allow-origin', origin!)
            .header('access-control-allow-methods', CORS_METHODS)
            .header('access-control-allow-headers', CORS_HEADERS)
            .header('access-control-max-age', '600')
            .header('vary', 'Origin');
        },
      },
    },
  ];
}
