import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Knex } from 'knex';
import { FONT_FAMILIES } from '../services/fonts.js';
import type { BrandService } from '../services/profiles.js';
import { orgFacts } from '../services/deps.js';
import { WIDGET_TEXT_KEYS } from '../../../core/kernel/widget-texts.js';

export const PublicBrandSchema = Joi.object({
  host: Joi.string().required().description('The Host the request was made to'),
  brand: Joi.object({
    name: Joi.string().required(),
    logo_url: Joi.string().uri().allow(null).required(),
    primary_color: Joi.string().required().description('The color in use (primary_color_effective)'),
    font_family: Joi.string()
      .valid(...FONT_FAMILIES)
      .required(),
    theme: Joi.string().valid('light', 'dark').required(),
    locale: Joi.string().valid('en', 'it').required(),
    website_url: Joi.string().uri().allow(null).required(),
    show_badge: Joi.boolean().required(),
    widget_texts: Joi.object(Object.fromEntries(WIDGET_TEXT_KEYS.map((k) => [k, Joi.string()]))).required(),
  })
    .allow(null)
    .required()
    .description('null unless the Host is a verified white-label (status) domain'),
}).id('PublicBrand');

/** GET /v1/public/brand (section `public`): what a white-label host shows before anyone signs in. */
export function publicBrandRoutes(brand: () => BrandService, db: () => Knex): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/public/brand',
      options: {
        id: 'getPublicBrand',
        tags: ['public'],
        description: 'The brand of a verified white-label host (null for other hosts)',
        notes:
          "Read from the Host header: a brand profile's verified status domain answers its brand; every other host answers brand null. No sign-in.",
        auth: false,
        response: { status: { 200: PublicBrandSchema } },
        handler: async (request) => {
          const host = request.info.hostname.toLowerCase();
          const row = await brand().byVerifiedStatusHost(db(), host);
          if (!row) return { host, brand: null };
          const look = brand().lookOf(row, await orgFacts(db(), row.org_id));
          // Relative logo path: it loads from the white-label host itself (a CNAME to this service).
          const logoUrl = row.logo_source === 'upload' && look.logoUrl ? new URL(look.logoUrl).pathname : look.logoUrl;
          return {
            host,
            brand: {
              name: look.name,
              logo_url: logoUrl && logoUrl.startsWith('/') ? `https://${host}${logoUrl}` : logoUrl,
              primary_color: look.color,
              font_family: look.fontFamily,
              theme: look.theme,
              locale: look.locale,
              website_url: look.websiteUrl,
              show_badge: look.showBadge,
              widget_texts: row.widget_texts ?? {},
            },
          };
        },
      },
    },
  ];
}
