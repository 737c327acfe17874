/** The tickets plugin's joi schemas: answers (shared shapes become OpenAPI components) and inputs. */
export * from './values.js';
export { OkSchema } from './common.js';
export * from './message.js';
export * from './ticket-page.js';
export * from './ticket.js';
export * from './subscriber.js';
export * from './input.js';
