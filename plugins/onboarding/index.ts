import { asValue } from 'awilix';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { AuditWriter } from '../../core/audit/audit-writer.js';
import type { Outbox } from '../../core/bus/outbox.js';
import { KEYS } from '../../core/kernel/keys.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import type { SecretBox } from '../../core/security/secret-box.js';
import { onboardingOptionsSchema, type OnboardingOptions } from './options.js';
import { onboardingRoutes } from './routes/onboarding.js';
import { DemoService } from './services/demo.js';
import type { CodeIndexPort, FixRecordsPort, OnboardingDeps, PlanCatalogPort, RepositoriesPort, TicketPort, WorkspacePort } from './services/deps.js';
import { ExecutionService } from './services/execution.js';
import { MetricsService } from './services/metrics.js';
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
    const cradle = () => container.cradle as Record<string, unknown>;
    const optional = <T>(key: string): T | null => (container.resolve(key, { allowUnregistered: true }) as T | undefined) ?? null;
    const deps: OnboardingDeps = {
      get db() { return cradle()[KEYS.db] as Knex; },
      get audit() { return cradle()[KEYS.audit] as AuditWriter; },
      get outbox() { return cradle()[KEYS.outbox] as Outbox; },
      get secretBox() { return cradle()[KEYS.secretBox] as SecretBox; },
      get workspaces() { return cradle().workspaceService as WorkspacePort; },
      get repositories() { return optional<RepositoriesPort>('codehostRepositories'); },
      get codeIndex() { return optional<CodeIndexPort>('codeIndex'); },
      get tickets() { return cradle().ticketService as TicketPort; },
      get plans() { return optional<PlanCatalogPort>('planCatalog'); },
      get fixRecords() { return optional<FixRecordsPort>('fixRecords'); },
      options,
      get log() { return ctx.log as Logger; },
      clock: () => new Date(),
    };
    const execution = new ExecutionService(deps);
    const demo = new DemoService(deps);
    const wizard = new WizardService(deps, execution, demo);
    const metrics = new MetricsService(deps);
    ctx.provide({ executionRules: asValue({ assertAllowed }), onboardingDemo: asValue(demo) });
    ctx.routes(onboardingRoutes({ wizard, execution, demo, metrics }));
    // The run follows its ticket's jobs: each end of a job or diagnosis of a demo ticket updates it.
    ctx.consume('demo-progress', ['fixes.job_finished', 'fixes.job_dead', 'fixes.diagnosis_completed', 'fixes.fix_verified'], async (message, scope) => {
      const p = message.payload as { ticket_id?: string };
      if (!p.ticket_id || !message.orgId) return;
      await demo.onJobEvent((scope.cradle as { trx: Knex }).trx, message.orgId, p.ticket_id);
    });
  },
});
