import Joi from 'joi';

/** `config.plugins.widget.options`, documented in docs/widget.md. */
export interface WidgetOptions {
  /** Passive error events accepted per widget key and minute (429 with Retry-After beyond). */
  eventsPerMinute: number;
  /** Reports accepted per widget key and minute. */
  reportsPerMinute: number;
  /** Reports accepted per client IP address and minute (spam from one machine). */
  reportsPerIpPerMinute: number;
  /** Identify calls accepted per widget key and minute. */
  identifyPerMinute: number;
  /** Largest screenshot, in bytes after base64 decoding. */
  maxScreenshotBytes: number;
  /** Largest body of POST /v1/widget/reports (the screenshot travels in it as base64). */
  maxReportBodyBytes: number;
  /** A widget whose config was fetched within this many hours counts as installed and active. */
  seenRecentlyHours: number;
  /** Cache-Control max-age of /widget.js, in seconds (revalidated with its ETag). */
  scriptMaxAgeSeconds: number;
}

export const widgetOptionsSchema = Joi.object<WidgetOptions>({
  eventsPerMinute: Joi.number().integer().min(1).max(1_000_000).default(600),
  reportsPerMinute: Joi.number().integer().min(1).max(100_000).default(60),
  reportsPerIpPerMinute: Joi.number().integer().min(1).max(100_000).default(10),
  identifyPerMinute: Joi.number().integer().min(1).max(1_000_000).default(600),
  maxScreenshotBytes: Joi.number()
    .integer()
    .min(1024)
    .max(20 * 1024 * 1024)
    .default(3 * 1024 * 1024),
  maxReportBodyBytes: Joi.number()
    .integer()
    .min(16 * 1024)
    .max(40 * 1024 * 1024)
    .default(5 * 1024 * 1024),
  seenRecentlyHours: Joi.number()
    .min(1)
    .max(24 * 90)
    .default(72),
  scriptMaxAgeSeconds: Joi.number()
    .integer()
    .min(0)
    .max(365 * 24 * 3600)
    .default(86_400),
});
