import { asValue } from 'awilix';
import { optional } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { analyticsRoutes } from './routes/analytics.js';
import { publicRoutes } from './routes/public.js';
import { MetricsService } from './services/metrics.js';
import { PublicService } from './services/public.js';
import { sponsorshipReviewRoutes } from './routes/sponsorship-review.js';
import { SPONSORSHIP_DECISION_TEMPLATES, SponsorshipReview } from './services/sponsorship-review.js';

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
      () => ctx.container.resolve('db'),
      () => optional(ctx.container, 'fixRecords') ?? null,
    );
    // The same figures for other plugins (agency's monthly client reports).
    ctx.provide({ supportMetrics: asValue(metrics) });
    ctx.routes(
      analyticsRoutes(
        () => metrics,
        () => ctx.container.resolve('workspaceService'),
      ),
    );
    const publicService = new PublicService({
      db: () => ctx.container.resolve('db'),
      outbox: () => ctx.container.resolve('outbox'),
      rateLimiter: () => ctx.container.resolve('rateLimiter'),
      statsTtlMs: 5 * 60_000,
    });
    ctx.routes(publicRoutes(() => publicService));

    // Staff review of the sponsorship requests; approval grants sponsored credits through billing's ledger when billing is on.
    const mailer = ctx.container.resolve('mailer');
    mailer.registerTemplates(SPONSORSHIP_DECISION_TEMPLATES);
    const review = new SponsorshipReview({
      db: () => ctx.container.resolve('db'),
      audit: () => ctx.container.resolve('audit'),
      outbox: () => ctx.container.resolve('outbox'),
      mailer: () => mailer,
      credits: () => optional(ctx.container, 'creditLedger') ?? null,
      defaultFixes: 20,
      defaultExpiryDays: 365,
    });
    ctx.routes(sponsorshipReviewRoutes(() => review));
  },
});
