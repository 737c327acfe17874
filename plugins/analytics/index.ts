import { asValue } from 'awilix';
import type { Knex } from 'knex';
import { definePlugin } from '../../core/kernel/plugin.js';
import { analyticsRoutes, type WorkspaceOpener } from './routes/analytics.js';
import type { Outbox } from '../../core/bus/outbox.js';
import type { RateLimiter } from '../../core/http/rate-limit.js';
import { publicRoutes } from './routes/public.js';
import { MetricsService, type FixTotalsPort } from './services/metrics.js';
import { PublicService } from './services/public.js';
import { sponsorshipReviewRoutes } from './routes/sponsorship-review.js';
import { SPONSORSHIP_DECISION_TEMPLATES, SponsorshipReview, type DecisionMailerPort, type SponsoredCreditsPort } from './services/sponsorship-review.js';
import type { AuditWriter } from '../../core/audit/audit-writer.js';

/**
 * Support analytics: the `analytics` section (2 operations), organization and workspace metrics
 * over a date range computed from the tickets (and the fix loop's jobs when installed), a read
 * model over the tickets. It also serves two operations of the `public` section: landing-page
 * counters and open-source sponsorship requests (table oss_sponsorship_requests, migration 0910).
 * See docs/analytics.md.
 */
export default definePlugin({
  name: 'analytics',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'tickets', 'mail'],
  register(ctx) {
    const metrics = new MetricsService(
      () => ctx.container.resolve('db') as Knex,
      () => (ctx.container.resolve('fixRecords', { allowUnregistered: true }) as FixTotalsPort | undefined) ?? null,
    );
    // The same figures for other plugins (agency's monthly client reports).
    ctx.provide({ supportMetrics: asValue(metrics) });
    ctx.routes(analyticsRoutes(() => metrics, () => ctx.container.resolve('workspaceService') as WorkspaceOpener));
    const publicService = new PublicService({
      db: () => ctx.container.resolve('db') as Knex,
      outbox: () => ctx.container.resolve('outbox') as Outbox,
      rateLimiter: () => ctx.container.resolve('rateLimiter') as RateLimiter,
      statsTtlMs: 5 * 60_000,
    });
    ctx.routes(publicRoutes(() => publicService));

    // Staff review of the sponsorship requests; approval grants sponsored credits through billing's ledger when billing is on.
    const mailer = ctx.container.resolve('mailer') as DecisionMailerPort & { registerTemplates(t: typeof SPONSORSHIP_DECISION_TEMPLATES): void };
    mailer.registerTemplates(SPONSORSHIP_DECISION_TEMPLATES);
    const review = new SponsorshipReview({
      db: () => ctx.container.resolve('db') as Knex,
      audit: () => ctx.container.resolve('audit') as AuditWriter,
      outbox: () => ctx.container.resolve('outbox') as Outbox,
      mailer: () => mailer,
      credits: () => (ctx.container.resolve('creditLedger', { allowUnregistered: true }) as SponsoredCreditsPort | undefined) ?? null,
      defaultFixes: 20,
      defaultExpiryDays: 365,
    });
    ctx.routes(sponsorshipReviewRoutes(() => review));
  },
});
