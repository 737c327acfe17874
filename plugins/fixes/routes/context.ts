import type { Knex } from 'knex';
import type { TicketPort } from '../services/deps.js';

/** What the route tables call, resolved lazily. */
export interface FixesServices {
  db(): Knex;
  tickets(): TicketPort;
}
