import type { Knex } from 'knex';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { Outbox } from '../../core/bus/outbox.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { agencyRoutes } from './routes/agency.js';
import { consoleRoutes } from './routes/console.js';
import { AgencyConsole } from './services/console.js';
import { publicPartnerRoutes } from './routes/public.js';
import { WhiteLabelReadiness, type BrandDirectoryPort, type WorkspaceReaderPort } from './services/clients.js';
import { PartnerService } from './services/partner.js';
import { reportRoutes } from './routes/reports.js';
import { AGENCY_MAIL_TEMPLATES } from './services/report-texts.js';
import { AgencyReports, type ReportBrandPort, type ReportMailerPort } from './services/reports.js';

/**
 * Agency features (section `agency`: overview, client card, queue, monthly reports, resale,
 * white-label readiness and the partner profile)
 * and the public list of certified partners. See docs/agency.md.
 */
export default definePlugin({
  name: 'agency',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'brand', 'mail'],
  register(ctx) {
    const r = <T>(key: string) => () => ctx.container.resolve(key) as T;
    const partner = new PartnerService({ db: r<Knex>('db'), audit: r<AuditWriter>('audit'), outbox: r<Outbox>('outbox') });
    const whiteLabel = new WhiteLabelReadiness({ db: r<Knex>('db'), directory: r<BrandDirectoryPort>('brandDirectory'), workspaces: r<WorkspaceReaderPort>('workspaceService') });
    ctx.routes(agencyRoutes({ partner: () => partner, whiteLabel: () => whiteLabel }));
    const agencyConsole = new AgencyConsole({ db: r<Knex>('db'), directory: r<BrandDirectoryPort>('brandDirectory'), workspaces: r<WorkspaceReaderPort>('workspaceService') });
    ctx.routes(consoleRoutes(() => agencyConsole));
    ctx.routes(publicPartnerRoutes(() => partner));
    const mailer = ctx.container.resolve('mailer') as ReportMailerPort & { registerTemplates(t: typeof AGENCY_MAIL_TEMPLATES): void };
    mailer.registerTemplates(AGENCY_MAIL_TEMPLATES);
    const reports = new AgencyReports({
      db: r<Knex>('db'), audit: r<AuditWriter>('audit'), outbox: r<Outbox>('outbox'), mailer: () => mailer, brand: r<ReportBrandPort>('brandService'),
    });
    ctx.routes(reportRoutes(() => reports));
  },
});
