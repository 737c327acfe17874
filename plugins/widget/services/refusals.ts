import { httpError } from '../../../core/http/errors.js';
import { REFUSALS } from '../texts.js';

type Refusal = keyof typeof REFUSALS;
/** An error answer whose message is one of the widget's refusals, in en (message) and it (details.message_it). */
export const refuse = (status: number, code: string, key: Refusal, details: Record<string, unknown> = {}) =>
  httpError(status, code, REFUSALS[key].en, { ...details, message_it: REFUSALS[key].it });
