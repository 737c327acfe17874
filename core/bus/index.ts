import type { Knex } from 'knex';
import type { AppConfig } from '../kernel/config.js';
import type { Bus } from './bus.js';
import { MemoryBus } from './memory-bus.js';
import { RabbitBus, type RabbitBusOptions } from './rabbit-bus.js';
import type { BusLog } from './support.js';

export type { Bus, BusMessage, ConsumerOptions, DeadLetter, MessageHandler, OutgoingMessage } from './bus.js';
export type { BusConfig, BusLog } from './support.js';
export { MemoryBus, topicMatches, type MemoryBusOptions } from './memory-bus.js';
export { RabbitBus, type RabbitBusOptions } from './rabbit-bus.js';
export {
  Outbox,
  OutboxRelay,
  type OutboxAddOptions,
  type OutboxOptions,
  type OutboxRelayOptions,
  type RelayPass,
} from './outbox.js';
export { idempotent, purgeInbox, type IdempotentOptions, type TransactionalHandler } from './inbox.js';
export { listDeadLetters, recordDeadLetter } from './dead-letters.js';

export interface CreateBusDeps {
  db: Knex;
  log?: BusLog;
  /** RabbitMQ only: timeouts and connection tuning. */
  rabbit?: Omit<RabbitBusOptions, 'db' | 'log'>;
}

/** The in-process bus when `config.bus.url` is null (the embedded default), else RabbitMQ. */
export function createBus(config: AppConfig, deps: CreateBusDeps): Bus {
  if (config.bus.url === null) return new MemoryBus(config.bus, { db: deps.db, log: deps.log });
  return new RabbitBus(config.bus, { ...deps.rabbit, db: deps.db, log: deps.log });
}
