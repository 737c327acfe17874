import type { BusMessage, MessageHandler } from '../../core/bus/index.js';

/** A consumer that keeps `pick(message)` of each message it is handed in `into`. */
export function keep<T>(into: T[], pick: (message: BusMessage) => T): MessageHandler {
  return (message) => {
    into.push(pick(message));
    return Promise.resolve();
  };
}
