import type { Knex } from 'knex';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { Cradle } from '../../../core/kernel/cradle.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import type { FileLinks } from './file-links.js';
import type { MailAddress, MailerPort } from '../../../core/contracts/mail.js';

/** What tickets need of `workspaceService` (the workspaces plugin). */
export type WorkspaceReader = Pick<Cradle['workspaceService'], 'get' | 'open' | 'getMany'>;
/** A workspace as the workspaces plugin stores it. */
export type TicketWorkspace = Awaited<ReturnType<WorkspaceReader['get']>>;

/** What the white-label guard decides before a reply leaves (see WhiteLabelGuard). */
export type WhiteLabelDecision =
  | { allowed: true; from?: MailAddress }
  | { allowed: false; code: string; message: string; details?: Record<string, unknown> };

/**
 * Seam the brand plugin fills: before a draft is sent, decides whether this workspace may send
 * (an agency's client workspace whose white-label sending is not ready must not leak the
 * agency's or the engine's name) and, optionally, the From address to send with. The default
 * allows and lets the mail plugin's sender stand.
 */
export interface WhiteLabelGuard {
  check(input: { trx: Knex; orgId: string; workspace: TicketWorkspace; ticketId: string }): Promise<WhiteLabelDecision>;
}

export const allowAllGuard: WhiteLabelGuard = { check: () => Promise.resolve({ allowed: true }) };

export interface TicketsDeps {
  db: Knex;
  outbox: Outbox;
  audit: AuditWriter;
  secretBox: SecretBox;
  config: AppConfig;
  workspaceService: WorkspaceReader;
  mailer: MailerPort;
  whiteLabelGuard: WhiteLabelGuard;
  fileLinks: FileLinks;
}
