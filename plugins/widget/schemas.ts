import Joi from 'joi';
import { WIDGET_TEXT_KEYS } from '../../core/kernel/widget-texts.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

const str = Joi.string().allow(null);
const publicKey = Joi.string()
  .pattern(/^pk_[A-Za-z0-9_-]{8,64}$/)
  .message('public_key must be a widget public key (pk_…)');

export const WidgetCapture = Joi.object({
  console: Joi.boolean().required(),
  network: Joi.boolean().required(),
  screenshot: Joi.boolean().required(),
  max_entries: Joi.number().integer().required(),
}).id('WidgetCapture');

export const WidgetPassiveCollection = Joi.object({ enabled: Joi.boolean().required() }).id('WidgetPassiveCollection');

export const WidgetConfig = Joi.object({
  public_key: Joi.string().required(),
  locale: Joi.string().valid('en', 'it').required(),
  brand: Joi.object({
    name: Joi.string().required(),
    logo_url: str.required(),
    primary_color: Joi.string().required(),
    font_family: Joi.string().required(),
    theme: Joi.string().valid('light', 'dark').required(),
    show_badge: Joi.boolean().required(),
    badge_text: str.required(),
    website_url: str.required(),
  }).required(),
  texts: Joi.object(Object.fromEntries(WIDGET_TEXT_KEYS.map((k) => [k, Joi.string().required()]))).required(),
  capture: WidgetCapture.required(),
  passive_collection: WidgetPassiveCollection.required(),
}).id('WidgetConfig');

export const WidgetSettings = Joi.object({
  workspace_id: Joi.string().required(),
  public_key: str.required(),
  allowed_origins: Joi.array().items(Joi.string()).required(),
  capture: WidgetCapture.required(),
  passive_collection: WidgetPassiveCollection.required(),
  identity_secret: str.required(),
  install: Joi.object({
    status: Joi.string().valid('never_seen', 'active', 'inactive').required(),
    last_seen_at: nullableTime(),
    last_seen_origin: str.required(),
    seen_recently_hours: Joi.number().required(),
  }).required(),
  script_url: Joi.string().uri().required(),
  embed_snippet: Joi.string().required(),
  preview: WidgetConfig.required(),
  key_rotated_at: nullableTime(),
  updated_at: nullableTime(),
}).id('WidgetSettings');

export const WidgetEventsReceipt = Joi.object({
  accepted: Joi.number().integer().required(),
  duplicates: Joi.number().integer().required(),
}).id('WidgetEventsReceipt');
export const WidgetIdentity = Joi.object({
  identified: Joi.boolean().required(),
  email: Joi.string().required(),
  user_id: str.required(),
}).id('WidgetIdentity');
export const WidgetReportReceipt = Joi.object({
  id: Joi.string().required(),
  ticket_id: Joi.string().required(),
  status_url: Joi.string().uri().required(),
  identified: Joi.boolean().required(),
  created_at: isoTime().required(),
}).id('WidgetReportReceipt');

// ---- inputs

export const keyHeaders = Joi.object({ 'x-widget-key': publicKey }).unknown(true);
export const configQuery = Joi.object({ key: publicKey, public_key: publicKey, locale: Joi.string().max(35) });

const browserInput = Joi.object({
  user_agent: Joi.string().max(512).allow(''),
  name: Joi.string().max(60).allow(''),
  version: Joi.string().max(40).allow(''),
  os: Joi.string().max(60).allow(''),
  language: Joi.string().max(35).allow(''),
  viewport: Joi.object({
    width: Joi.number().integer().min(0).max(100_000).required(),
    height: Joi.number().integer().min(0).max(100_000).required(),
  }),
  screen: Joi.object({
    width: Joi.number().integer().min(0).max(100_000).required(),
    height: Joi.number().integer().min(0).max(100_000).required(),
  }),
});

export const eventsPayload = Joi.object({
  public_key: publicKey,
  consent: Joi.boolean().required(),
  user_id: Joi.string().max(200),
  browser: browserInput,
  events: Joi.array()
    .min(1)
    .max(20)
    .items(
      Joi.object({
        type: Joi.string().max(200).allow(''),
        message: Joi.string().max(4000).required(),
        level: Joi.string().valid('fatal', 'error', 'warning', 'info', 'debug'),
        stack: Joi.string().max(16_000).allow(''),
        url: Joi.string().max(2000).allow(''),
        release: Joi.string().max(200).allow(''),
        environment: Joi.string().max(100).allow(''),
        occurred_at: isoTime(),
        fingerprint: Joi.string().max(200),
      }),
    )
    .required(),
});

export const identifyPayload = Joi.object({
  public_key: publicKey,
  consent: Joi.boolean().required(),
  email: Joi.string().email({ tlds: false }).max(254).required(),
  user_hash: Joi.string().hex().length(64).required(),
  user_id: Joi.string().max(200),
});

export const reportPayload = Joi.object({
  public_key: publicKey,
  email: Joi.string().email({ tlds: false }).max(254).required(),
  message: Joi.string().trim().min(1).max(10_000).required(),
  name: Joi.string().max(200).allow(''),
  user_id: Joi.string().max(200),
  user_hash: Joi.string().hex().length(64),
  locale: Joi.string().max(35),
  technical_consent: Joi.boolean(),
  screenshot_consent: Joi.boolean(),
  screenshot: Joi.string(),
  context: Joi.object({
    console: Joi.array()
      .max(200)
      .items(
        Joi.object({
          level: Joi.string().valid('error', 'warn', 'unhandled_exception', 'unhandled_rejection').required(),
          message: Joi.string().allow('').max(10_000).required(),
          stack: Joi.string().allow('').max(20_000),
          timestamp: isoTime().required(),
        }),
      ),
    network: Joi.array()
      .max(200)
      .items(
        Joi.object({
          method: Joi.string().max(20).required(),
          url: Joi.string().allow('').max(4000).required(),
          status: Joi.number().integer().min(0).max(999).required(),
          duration_ms: Joi.number().min(0).max(86_400_000).required(),
          timestamp: isoTime().required(),
          error: Joi.string().allow('').max(2000),
        }),
      ),
    browser: browserInput,
    url: Joi.string().max(4000).allow(''),
    release: Joi.string().max(200).allow(''),
  }),
});

export const settingsPatch = Joi.object({
  allowed_origins: Joi.array().max(50).items(Joi.string().max(300)),
  capture: Joi.object({
    console: Joi.boolean(),
    network: Joi.boolean(),
    screenshot: Joi.boolean(),
    max_entries: Joi.number().integer().min(1).max(100),
  }),
  passive_collection: Joi.object({ enabled: Joi.boolean() }),
  rotate_identity_secret: Joi.boolean(),
}).min(1);

export const workspaceParams = Joi.object({ id: Joi.string().max(64).required() });
