import { asValue } from 'awilix';
import { cradleView, optional } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { onboardingOptionsSchema, type OnboardingOptions } from './options.js';
import { onboardingRoutes } from './routes/onboarding.js';
import { DemoService } from './services/demo.js';
import type { OnboardingDeps } from './services/deps.js';
import { ExecutionService } from './services/execution.js';
import { MetricsService } from './services/metrics.js';
import { ModelKeys } from './services/model-keys.js';
import { assertAllowed } from './services/rules.js';
import { WizardService } from './services/wizard.js';

/**
 * Onboarding (docs/onboarding.md): the wizard, execution settings with the rules of forbidden
 * combinations, write-only credentials, the demo ticket followed through the fix loop, and staff
 * metrics. Container entries: `executionRules` ({ assertAllowed }: the same rules for other
 * plugins, e.g. PATCH /v1/workspaces), `onboardingDemo`.
 */
export default definePlugin<OnboardingOptions>({
  name: 'onboarding',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'tickets'],
  options: onboardingOptionsSchema,
  register(ctx) {
    const { container, options } = ctx;
    const deps = cradleView<OnboardingDeps>(container, {
      db: 'db',
      audit: 'audit',
      outbox: 'outbox',
      secretBox: 'secretBox',
      workspaces: 'workspaceService',
      repositories: () => optional(container, 'codehostRepositories') ?? null,
      codeIndex: () => optional(container, 'codeIndex') ?? null,
      tickets: 'ticketService',
      plans: () => optional(container, 'planCatalog') ?? null,
      fixRecords: () => optional(container, 'fixRecords') ?? null,
      options: () => options,
      log: () => ctx.log,
      clock: () => () => new Date(),
    });
    const execution = new ExecutionService(deps);
    const demo = new DemoService(deps);
    const wizard = new WizardService(deps, execution, demo);
    const metrics = new MetricsService(deps);
    ctx.provide({
      executionRules: asValue({ assertAllowed }),
      onboardingDemo: asValue(demo),
      agentModelKeys: asValue(new ModelKeys(deps)),
    });
    ctx.routes(onboardingRoutes({ wizard, execution, demo, metrics }));
    // The run follows its ticket's jobs: each end of a job or diagnosis of a demo ticket updates it.
    ctx.consume(
      'demo-progress',
      ['fixes.job_finished', 'fixes.job_dead', 'fixes.diagnosis_completed', 'fixes.fix_verified'],
      async (message, scope) => {
        const p = message.payload as { ticket_id?: string };
        if (!p.ticket_id || !message.orgId) return;
        await demo.onJobEvent(scope.cradle.trx, message.orgId, p.ticket_id);
      },
    );
  },
});
