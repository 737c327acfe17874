import type { Request, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import { notFound } from '../../../core/http/errors.js';
import {
  DemoRunSchema,
  ExecutionSettingsSchema,
  OnboardingMetricsSchema,
  OnboardingSchema,
  STEP_IDS,
  agentPayload,
  executionPayload,
} from '../schemas.js';
import type { StepId } from '../models.js';
import type { DemoService } from '../services/demo.js';
import type { ExecutionInput, ExecutionService } from '../services/execution.js';
import type { MetricsService } from '../services/metrics.js';
import type { AgentInput, WizardService } from '../services/wizard.js';
import { isoTime } from '../../../core/http/times.js';

const TAG = 'onboarding';
const ADMINS = { roles: ['owner', 'admin'] };

export interface OnboardingRouteServices {
  wizard: WizardService;
  execution: ExecutionService;
  demo: DemoService;
  metrics: MetricsService;
}

const wsParams = Joi.object({ workspaceId: Joi.string().max(64).required() });
const day = /^\d{4}-\d{2}-\d{2}$/;
/** A date-only `to` includes that whole day. */
const bound = (v: string | undefined, end: boolean) =>
  v ? new Date(new Date(v).getTime() + (end && day.test(v) ? 86_400_000 : 0)) : undefined;

/** The onboarding section (15 operations). */
export function onboardingRoutes(s: OnboardingRouteServices): ServerRoute[] {
  const view = (request: Request) => s.wizard.view(requirePrincipal(request));
  return [
    {
      method: 'GET',
      path: '/v1/onboarding',
      options: {
        id: 'getOnboarding',
        tags: [TAG],
        description: 'The onboarding wizard of the organization',
        notes:
          'Created on first read with the organization’s first workspace. Steps, agent choice, credentials (last4 only), requirements and the demo section.',
        response: { status: { 200: OnboardingSchema } },
        handler: async (request) => view(request),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/workspace',
      options: {
        id: 'chooseOnboardingWorkspace',
        tags: [TAG],
        description: 'Chooses the workspace the wizard sets up',
        notes:
          'Choosing another workspace starts the steps again. 404 for another organization’s workspace. Owners and admins. Audited.',
        validate: { payload: Joi.object({ workspace_id: Joi.string().max(64).required() }) },
        response: { status: { 200: OnboardingSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          s.wizard.chooseWorkspace(request.actor(), (request.payload as { workspace_id: string }).workspace_id),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/repository',
      options: {
        id: 'chooseOnboardingRepository',
        tags: [TAG],
        description: 'Step 1: the repository; opens the onboarding pull request',
        notes:
          'The repository must be connected to the chosen workspace (422 repository_not_in_workspace). Opens ' +
          'or updates the onboarding pull request through the codehost plugin (the same service as POST ' +
          '/v1/repositories/{id}/onboarding-pr); the step is done once the pull request is open. Owners and ' +
          'admins. Audited.',
        validate: { payload: Joi.object({ repository_id: Joi.string().max(64).required() }) },
        response: { status: { 200: OnboardingSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          s.wizard.chooseRepository(request.actor(), (request.payload as { repository_id: string }).repository_id),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/steps/{step}',
      options: {
        id: 'updateOnboardingStep',
        tags: [TAG],
        description: 'Completes, skips or reopens a step',
        notes:
          'complete gives done, skip gives skipped (channels and logs only: 409 step_not_optional), reopen ' +
          'gives todo. 409 step_unavailable before its turn. Owners and admins. Audited.',
        validate: {
          params: Joi.object({
            step: Joi.string()
              .valid(...STEP_IDS)
              .required(),
          }),
          payload: Joi.object({ action: Joi.string().valid('complete', 'skip', 'reopen').required() }),
        },
        response: { status: { 200: OnboardingSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          s.wizard.step(
            request.actor(),
            (request.params as { step: StepId }).step,
            (request.payload as { action: 'complete' | 'skip' | 'reopen' }).action,
          ),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/agent',
      options: {
        id: 'chooseOnboardingAgent',
        tags: [TAG],
        description: 'The agent step: execution settings of the chosen workspace',
        notes:
          'Secrets are write-only: agent_key becomes an encrypted credential and, for runner mode over ' +
          'github_actions, the repository’s CI secret; codex_auth_json and cloud_auth are stored encrypted. ' +
          'Forbidden combinations answer 422 forbidden_combination with details.message and details.suggestion ' +
          'in the user’s language. Owners and admins. Audited.',
        validate: { payload: agentPayload },
        response: { status: { 200: OnboardingSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => s.wizard.chooseAgent(request.actor(), request.payload as AgentInput),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/complete',
      options: {
        id: 'completeOnboarding',
        tags: [TAG],
        description: 'Ends the wizard',
        notes:
          '409 onboarding_incomplete (details.steps) while the repository or agent step is not done; optional ' +
          'steps left open are skipped. Owners and admins. Audited.',
        response: { status: { 200: OnboardingSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => s.wizard.complete(request.actor()),
      },
    },
    {
      method: 'GET',
      path: '/v1/onboarding/demo',
      options: {
        id: 'getOnboardingDemo',
        tags: [TAG],
        description: 'The latest demo run',
        notes: 'Follows the demo ticket’s diagnosis job. 404 before any demo.',
        response: { status: { 200: DemoRunSchema } },
        handler: async (request) => {
          const run = await s.demo.latest(requirePrincipal(request).orgId);
          if (!run) throw notFound('demo');
          return s.demo.json(run);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/demo',
      options: {
        id: 'startOnboardingDemo',
        tags: [TAG],
        description: 'Starts the demo ticket, once per organization',
        notes:
          'At the service’s expense within cap_usd. 409 with the start blocker as code: demo_already_used, ' +
          'consent_required, consent_refused, workspace_required, repository_required. Owners and admins. ' +
          'Audited.',
        response: { status: { 202: OnboardingSchema } },
        plugins: { patchwell: { ...ADMINS, successStatus: 202 } },
        handler: async (request, h) => h.response(await s.wizard.startDemo(request.actor())).code(202),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/demo/consent',
      options: {
        id: 'setOnboardingDemoConsent',
        tags: [TAG],
        description: 'Consent to clone the repository in the managed sandbox',
        notes: 'granted starts the demo when it can start; refused does not. Owners and admins. Audited.',
        validate: { payload: Joi.object({ consent: Joi.string().valid('granted', 'refused').required() }) },
        response: { status: { 200: OnboardingSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          s.wizard.consent(request.actor(), (request.payload as { consent: 'granted' | 'refused' }).consent),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/demo/retry',
      options: {
        id: 'retryOnboardingDemo',
        tags: [TAG],
        description: 'Reruns a demo that stopped without a diagnosis, within its cap',
        notes:
          '409 retry_not_allowed (details.reason: not_failed, diagnosed, budget_exhausted, max_attempts). Owners and admins. Audited.',
        response: { status: { 202: DemoRunSchema } },
        plugins: { patchwell: { ...ADMINS, successStatus: 202 } },
        handler: async (request, h) => h.response(await s.demo.json(await s.demo.retry(request.actor()))).code(202),
      },
    },
    {
      method: 'POST',
      path: '/v1/onboarding/demo/workspace',
      options: {
        id: 'startWorkspaceDemo',
        tags: [TAG],
        description: 'A test ticket through the workspace’s own runner or agent, without the consent',
        notes:
          'Needs the agent step (409 agent_required) and no workspace demo running (409 demo_running). Owners and admins. Audited.',
        response: { status: { 202: OnboardingSchema } },
        plugins: { patchwell: { ...ADMINS, successStatus: 202 } },
        handler: async (request, h) => h.response(await s.wizard.startWorkspaceDemo(request.actor())).code(202),
      },
    },
    {
      method: 'GET',
      path: '/v1/onboarding/execution/{workspaceId}',
      options: {
        id: 'getExecutionSettings',
        tags: [TAG],
        description: 'Execution settings of a workspace',
        notes:
          'With credentials (last4 only), repositories, requirements and a preview of the files the runner needs. 404 for another organization’s workspace.',
        validate: { params: wsParams },
        response: { status: { 200: ExecutionSettingsSchema } },
        handler: async (request) =>
          s.execution.get(requirePrincipal(request), (request.params as { workspaceId: string }).workspaceId),
      },
    },
    {
      method: 'PUT',
      path: '/v1/onboarding/execution/{workspaceId}',
      options: {
        id: 'updateExecutionSettings',
        tags: [TAG],
        description: 'Changes the execution settings of a workspace',
        notes:
          'Stored on the workspace (the same columns as PATCH /v1/workspaces/{id}). Forbidden combinations ' +
          'answer 422 forbidden_combination (rules in docs/onboarding.md). Owners and admins. Audited.',
        validate: { params: wsParams, payload: executionPayload },
        response: { status: { 200: ExecutionSettingsSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          s.execution.put(
            request.actor(),
            (request.params as { workspaceId: string }).workspaceId,
            request.payload as ExecutionInput,
          ),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/onboarding/execution/{workspaceId}/credentials/{credentialId}',
      options: {
        id: 'deleteExecutionCredential',
        tags: [TAG],
        description: 'Deletes a credential no workspace uses',
        notes: '409 credential_in_use (details.workspace_ids) while a workspace uses it. Owners and admins. Audited.',
        validate: {
          params: Joi.object({
            workspaceId: Joi.string().max(64).required(),
            credentialId: Joi.string().max(64).required(),
          }),
        },
        response: { status: { 200: ExecutionSettingsSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => {
          const p = request.params as { workspaceId: string; credentialId: string };
          return s.execution.deleteCredential(request.actor(), p.workspaceId, p.credentialId);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/onboarding/metrics',
      options: {
        id: 'getOnboardingMetrics',
        tags: [TAG],
        description: 'Onboarding metrics (staff)',
        notes:
          'from and to: datetime or date (a date-only to includes the day); default the last 30 days. Time to ' +
          'first diagnosis runs from signup to the first diagnosis of the organization’s demo; median and p90 ' +
          'are nearest-rank.',
        validate: { query: Joi.object({ from: isoTime(), to: isoTime() }) },
        response: { status: { 200: OnboardingMetricsSchema } },
        plugins: { patchwell: { staff: true } },
        handler: async (request) => {
          const q = request.query as { from?: string; to?: string };
          return s.metrics.compute({ from: bound(q.from, false), to: bound(q.to, true) });
        },
      },
    },
  ];
}
