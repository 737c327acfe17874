import type { ServerRoute } from '@hapi/hapi';
import { asValue } from 'awilix';
import type { Cradle } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { agencyRoutes } from './routes/agency.js';
import { consoleRoutes } from './routes/console.js';
import { gateAgencyRoutes } from './routes/gate.js';
import { AgencyConsole } from './services/console.js';
import { publicPartnerRoutes } from './routes/public.js';
import { WhiteLabelReadiness } from './services/clients.js';
import { PartnerService } from './services/partner.js';
import { reportRoutes } from './routes/reports.js';
import { AGENCY_MAIL_TEMPLATES } from './services/report-texts.js';
import { AgencyReports } from './services/reports.js';

/**
 * Agency features (section `agency`: overview, client card, queue, monthly reports, resale,
 * white-label readiness and the partner profile)
 * and the public list of certified partners. See docs/agency.md.
 */
/** Auto-send runs on the first days of a UTC month (hourly, so a service down on the 1st still sends). */
const AUTO_SEND_DAYS = 3;

export default definePlugin({
  name: 'agency',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'brand', 'mail', 'analytics'],
  register(ctx) {
    const r =
      <K extends keyof Cradle>(key: K) =>
      () =>
        ctx.container.resolve(key);
    // Every /v1/agency/* route: agency organizations on a plan with the `agency` feature (402 otherwise).
    const gated = (routes: ServerRoute[]) => gateAgencyRoutes(routes, { db: r('db'), plans: r('planCatalog') });
    const partner = new PartnerService({
      db: r('db'),
      audit: r('audit'),
      outbox: r('outbox'),
    });
    const whiteLabel = new WhiteLabelReadiness({
      db: r('db'),
      directory: r('brandDirectory'),
      workspaces: r('workspaceService'),
    });
    ctx.routes(gated(agencyRoutes({ partner: () => partner, whiteLabel: () => whiteLabel })));
    const agencyConsole = new AgencyConsole({
      db: r('db'),
      directory: r('brandDirectory'),
      workspaces: r('workspaceService'),
    });
    ctx.routes(gated(consoleRoutes(() => agencyConsole)));
    ctx.routes(publicPartnerRoutes(() => partner));
    const mailer = ctx.container.resolve('mailer');
    mailer.registerTemplates(AGENCY_MAIL_TEMPLATES);
    const reports = new AgencyReports({
      db: r('db'),
      audit: r('audit'),
      outbox: r('outbox'),
      mailer: () => mailer,
      brand: r('brandService'),
      metrics: r('supportMetrics'),
    });
    ctx.routes(gated(reportRoutes(() => reports)));
    ctx.provide({ agencyReports: asValue(reports) });
    // report_auto_send: last month's report of every such client, generated and sent once, in the first days of a month.
    ctx.schedule('reports-auto-send', { everyMs: 60 * 60_000 }, async () => {
      const plans = ctx.container.resolve('planCatalog');
      const done = await reports.autoSend({
        hasAgencyPlan: (plan) => plans.hasFeature(plan, 'agency'),
        days: AUTO_SEND_DAYS,
        log: ctx.log,
      });
      if (done.generated || done.sent) ctx.log.info(done, 'agency reports auto-sent');
    });
  },
});
