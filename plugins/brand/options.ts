import Joi from 'joi';

/** `config.plugins.brand.options`, documented in docs/brand.md. */
export interface BrandOptions {
  /** DNS servers for status-domain checks (`host[:port]`); empty: the system's. */
  dnsServers: string[];
  dnsTimeoutMs: number;
  /** The host a status domain's CNAME points at; default `status.<host of server.publicBaseUrl>`. */
  statusCnameTarget: string | null;
  /** Label of the TXT challenge, published at `<label>.<status domain>`. */
  statusTxtLabel: string;
  /** How long a verified status domain keeps serving while its records fail, before it is unverified. */
  statusGraceHours: number;
  /** How often verified and pending status domains are checked again. */
  statusRecheckMinutes: number;
  /** Largest logo upload (the spec's limit is 512 KiB). */
  maxLogoBytes: number;
  /** Largest logo width or height in pixels. */
  maxLogoPixels: number;
  /** Color of a profile that sets none. */
  defaultPrimaryColor: string;
}

export const brandOptionsSchema = Joi.object<BrandOptions>({
  dnsServers: Joi.array()
    .items(Joi.string().pattern(/^(\[[0-9a-fA-F:]+\]|[0-9a-fA-F:.]+)(:\d{1,5})?$/))
    .default([]),
  dnsTimeoutMs: Joi.number().integer().min(100).max(30_000).default(5000),
  statusCnameTarget: Joi.string().hostname().allow(null).default(null),
  statusTxtLabel: Joi.string()
    .pattern(/^_[a-z0-9-]{1,40}$/)
    .default('_patchwell-status'),
  statusGraceHours: Joi.number()
    .min(0)
    .max(24 * 30)
    .default(72),
  statusRecheckMinutes: Joi.number()
    .integer()
    .min(1)
    .max(24 * 60)
    .default(60),
  maxLogoBytes: Joi.number()
    .integer()
    .min(1024)
    .max(512 * 1024)
    .default(512 * 1024),
  maxLogoPixels: Joi.number().integer().min(16).max(10_000).default(4096),
  defaultPrimaryColor: Joi.string()
    .pattern(/^#[0-9a-fA-F]{6}$/)
    .default('#2563eb'),
});
