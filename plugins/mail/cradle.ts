import type { MailDelivery } from './services/delivery.js';
import type { Mailer } from './services/mailer.js';

/** What the mail plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    mailer: Mailer;
    mailDelivery: MailDelivery;
  }
}
