import { asValue } from 'awilix';
import type { Knex } from 'knex';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { Outbox } from '../../core/bus/outbox.js';
import { KEYS } from '../../core/kernel/keys.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { privacyOptionsSchema, type PrivacyOptions } from './options.js';
import { downloadRoutes, privacyRoutes } from './routes/privacy.js';
import { declareBuiltins } from './services/builtin.js';
import { ClosureService } from './services/closure.js';
import type { BillingActionsPort, PrivacyDeps } from './services/deps.js';
import { ErasureService } from './services/erasure.js';
import { ExportService } from './services/export.js';
import { PersonalDataRegistry } from './services/registry.js';
import { PRIVACY_TEMPLATES } from './services/templates.js';
import { TicketDeletionService } from './services/ticket-deletion.js';

/**
 * Privacy operations: organization closure with a scheduled purge, erasure of one end user,
 * ticket deletion. See docs/privacy.md.
 *
 * Container entries: `personalData` (PersonalDataRegistry: plugins declare the tables and columns
 * where they keep an end user's personal data), `privacyClosure`, `privacyErasure`, `privacyTickets`.
 */
export default definePlugin<PrivacyOptions>({
  name: 'privacy',
  version: '1.0.0',
  requires: ['accounts', 'tickets', 'mail'],
  options: privacyOptionsSchema,
  register(ctx) {
    const { container, options } = ctx;
    const cradle = () => container.cradle as Record<string, unknown>;
    const registry = new PersonalDataRegistry();
    declareBuiltins(registry);
    const deps: PrivacyDeps = {
      get db() {
        return cradle()[KEYS.db] as Knex;
      },
      get audit() {
        return cradle()[KEYS.audit] as AuditWriter;
      },
      get outbox() {
        return cradle()[KEYS.outbox] as Outbox;
      },
      get billing() {
        return (container.resolve('billingActions', { allowUnregistered: true }) as BillingActionsPort | undefined) ?? null;
      },
      registry,
      options,
      log: ctx.log,
      clock: () => new Date(),
    };
    const closure = new ClosureService(deps);
    type Mailer = ConstructorParameters<typeof ExportService>[1] extends () => infer M ? NonNullable<M> & { registerTemplates(t: unknown[]): void } : never;
    const mailer = () => (container.resolve('mailer', { allowUnregistered: true }) as Mailer | undefined) ?? null;
    const exportsService = new ExportService(deps, mailer, ExportService.directory(ctx.config.dataDir), ctx.config.server.publicBaseUrl.replace(/\/+$/, ''));
    mailer()?.registerTemplates(PRIVACY_TEMPLATES);
    ctx.provide({
      personalData: asValue(registry),
      privacyOptions: asValue(options),
      privacyClosure: asValue(closure),
      privacyErasure: asValue(new ErasureService(deps)),
      privacyTickets: asValue(new TicketDeletionService(deps)),
      privacyExports: asValue(exportsService),
    });
    ctx.routes(privacyRoutes());
    // The emailed download link is a page, not an API operation (like billing's hosted pages).
    ctx.server.route(downloadRoutes());
    ctx.consume('build-export', ['privacy.export_requested'], async (message, scope) => {
      await exportsService.build((message.payload as { export_id: string }).export_id, (scope.cradle as { trx: Knex }).trx);
    });
    ctx.schedule('purge-closed-organizations', { everyMs: options.purgeIntervalMs }, async () => {
      await closure.purgeDue();
      await exportsService.expire();
    });
  },
});
