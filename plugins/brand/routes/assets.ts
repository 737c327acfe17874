import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { BrandService } from '../services/profiles.js';
import { renderPreview } from '../services/preview.js';

const ASSET_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy':
    "default-src 'none'; img-src 'self' https: data:; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'Cross-Origin-Resource-Policy': 'cross-origin',
};

/**
 * Public brand assets (not API operations, so outside the OpenAPI document): the uploaded logo,
 * at a URL that changes with its content (emails and pages embed it), and a preview page of the
 * brand's header, button and colors (BrandProfile.logo.preview_url).
 */
export function assetRoutes(brand: () => BrandService): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/brand-assets/{id}/{file}',
      options: {
        auth: false,
        validate: {
          params: Joi.object({ id: Joi.string().max(64).required(), file: Joi.string().max(100).required() }),
          failAction: 'ignore',
        },
        handler: async (request, h) => {
          const { id, file } = request.params as { id: string; file: string };
          if (file === 'preview') {
            const page = await brand().previewOf(String(id));
            const res = h
              .response(page ? renderPreview(page) : 'Not found')
              .code(page ? 200 : 404)
              .type(page ? 'text/html; charset=utf-8' : 'text/plain');
            for (const [k, v] of Object.entries(ASSET_HEADERS)) res.header(k, v);
            return res.header('Cache-Control', 'no-store').header('X-Robots-Tag', 'noindex');
          }
          const logo = await brand().logoBytes(String(id));
          const m = /^logo-([0-9a-f]{16})\.(png|jpg|webp)$/.exec(String(file));
          if (!logo || !m || !logo.sha256.startsWith(m[1]))
            return h.response('Not found').code(404).type('text/plain').header('Cache-Control', 'no-store');
          const res = h
            .response(logo.data)
            .type(logo.contentType)
            .header('Cache-Control', 'public, max-age=31536000, immutable');
          for (const [k, v] of Object.entries(ASSET_HEADERS)) res.header(k, v);
          return res;
        },
      },
    },
  ];
}
