import { asValue } from 'awilix';
import Joi from 'joi';
import { optional } from '../../core/kernel/cradle.js';
import { mailDomainOf } from '../../core/kernel/mail-domain.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { MailDelivery } from './services/delivery.js';
import { MAIL_REQUESTED, Mailer, type MailAddress } from './services/mailer.js';

export {
  Mailer,
  mailInputError,
  isMailInputError,
  MAIL_REQUESTED,
  type EnqueueMail,
  type MailAddress,
} from './services/mailer.js';
export {
  MailTemplateError,
  MAIL_LOCALES,
  type MailTemplate,
  type MailLocale,
  type Localized,
  type RenderedMail,
} from './services/templates.js';
export { MailDelivery, type DeliveryOutcome } from './services/delivery.js';
export { BADGE_TEXT, type MailBrand, type MailBrandRef, type MailBrandingPort } from './services/branding.js';

export interface MailPluginOptions {
  /** Sender of every mail that names none. Default `Patchwell <no-reply@host of PUBLIC_BASE_URL>` (`localhost` for an IP). */
  from?: MailAddress;
  /** Send attempts before a mail is `failed` (and its event dead-lettered). Default `bus.maxAttempts`. */
  maxAttempts?: number;
  /** Delays between attempts (the last repeats). Default `bus.backoffMs`. */
  backoffMs?: number[];
  /** How long a worker holds a mail while the provider answers. */
  sendLeaseMs: number;
  /** Sent and failed mail is deleted after this many days. */
  retentionDays: number;
}

const MINUTE = 60_000;

export default definePlugin<MailPluginOptions>({
  name: 'mail',
  version: '1.0.0',
  uses: ['channel'],
  options: Joi.object<MailPluginOptions>({
    from: Joi.object({
      address: Joi.string()
        .email({ tlds: { allow: false } })
        .required(),
      name: Joi.string().max(200),
    }),
    maxAttempts: Joi.number().integer().min(1).max(50),
    backoffMs: Joi.array().items(Joi.number().integer().min(0)).min(1),
    sendLeaseMs: Joi.number()
      .integer()
      .min(1000)
      .default(10 * MINUTE),
    retentionDays: Joi.number().integer().min(1).max(3650).default(30),
  }),
  register(ctx) {
    const { container, config, options, log } = ctx;
    const cradle = container.cradle;
    // An IP base URL gives `localhost`: `no-reply@127.0.0.1` is not an address (core/kernel/mail-domain.ts).
    const host = mailDomainOf(config.server.publicBaseUrl);
    const mailer = new Mailer({
      outbox: cradle.outbox,
      publicBaseUrl: config.server.publicBaseUrl,
      defaultFrom: options.from ?? { address: `no-reply@${host}`, name: 'Patchwell' },
      log,
      // The brand plugin (when on) registers after this one: resolved at each enqueue.
      branding: () => optional(container, 'mailBranding') ?? null,
    });
    const maxAttempts = options.maxAttempts ?? config.bus.maxAttempts;
    const backoffMs = options.backoffMs ?? config.bus.backoffMs;
    const delivery = new MailDelivery({
      db: cradle.db,
      outbox: cradle.outbox,
      channel: () => {
        const adapter = container.cradle.channelAdapter;
        if (!adapter) throw new Error('no channel adapter is selected (config key adapters.channel)');
        return adapter;
      },
      log,
      maxAttempts,
      leaseMs: options.sendLeaseMs,
    });
    ctx.provide({ mailer: asValue(mailer), mailDelivery: asValue(delivery) });

    // Not through the inbox: delivery is idempotent by the row's status, and a failed attempt
    // must keep its attempts and last_error (an inbox transaction would roll them back).
    ctx.consume(
      'send',
      [MAIL_REQUESTED],
      async (message) => {
        const mailId = (message.payload as { mail_id?: unknown } | null)?.mail_id;
        if (typeof mailId !== 'string') {
          log.warn({ messageId: message.id }, 'mail.requested without a mail_id; ignored');
          return;
        }
        await delivery.deliver(mailId, message.attempt);
      },
      { idempotent: false, maxAttempts, backoffMs },
    );

    // Queued mail nobody touched for a while lost its delivery (in-process bus stopped): announce it again.
    const idleMs = Math.max(15 * MINUTE, 3 * Math.max(...backoffMs), 2 * options.sendLeaseMs);
    ctx.schedule('requeue-stuck', { everyMs: 5 * MINUTE }, async () => void (await delivery.requeueStuck(idleMs)));
    // Stored bodies carry links with one-time tokens and personal data: keep them only so long.
    ctx.schedule(
      'purge',
      { everyMs: 360 * MINUTE },
      async () => void (await delivery.purge(options.retentionDays * 24 * 60 * MINUTE)),
    );
  },
});
