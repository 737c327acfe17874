import Joi from 'joi';
import type { AppConfig } from '../kernel/config.js';

/**
 * A `redirect_to` a sign-in may send the browser to afterwards: a path of this site, or a URL on the
 * public base URL or a dashboard origin, never elsewhere (no open redirects).
 */
export function redirectTargetSchema(config: AppConfig): Joi.StringSchema {
  const allowed = new Set(
    [config.server.publicBaseUrl, ...config.server.dashboardOrigins].map((o) => new URL(o).origin),
  );
  return Joi.string()
    .max(2000)
    .custom((value: string, helpers) => {
      if (value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/\\')) return value;
      try {
        if (allowed.has(new URL(value).origin)) return value;
      } catch {
        // not a URL: refused below
      }
      return helpers.message({ custom: 'redirect_to must be a path or a URL of this service' });
    });
}
