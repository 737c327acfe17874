import { asValue } from 'awilix';
import { cradleView, optional } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { privacyOptionsSchema, type PrivacyOptions } from './options.js';
import { downloadRoutes, privacyRoutes } from './routes/privacy.js';
import { declareBuiltins } from './services/builtin.js';
import { ClosureService } from './services/closure.js';
import type { PrivacyDeps } from './services/deps.js';
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
    const registry = new PersonalDataRegistry();
    declareBuiltins(registry);
    const deps = cradleView<PrivacyDeps>(container, {
      db: 'db',
      audit: 'audit',
      outbox: 'outbox',
      billing: () => optional(container, 'billingActions') ?? null,
      registry: () => registry,
      options: () => options,
      log: () => ctx.log,
      clock: () => () => new Date(),
    });
    const closure = new ClosureService(deps);
    const mailer = () => optional(container, 'mailer') ?? null;
    const exportsService = new ExportService(
      deps,
      mailer,
      ExportService.directory(ctx.config.dataDir),
      ctx.config.server.publicBaseUrl.replace(/\/+$/, ''),
    );
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
      await exportsService.build((message.payload as { export_id: string }).export_id, scope.cradle.trx);
    });
    ctx.schedule('purge-closed-organizations', { everyMs: options.purgeIntervalMs }, async () => {
      await closure.purgeDue();
      await exportsService.expire();
    });
  },
});
