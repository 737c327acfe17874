import type { Request, ServerRoute } from '@hapi/hapi';
import type { JobEventInput, JobResult } from '../../../core/contracts/index.js';
import { requirePrincipal } from '../../../core/http/auth.js';
import {
  AgentCredentialSchema,
  credentialPayload,
  EventsAcceptedSchema,
  eventsPayload,
  GitTokenSchema,
  gitTokenPayload,
  HeartbeatSchema,
  jobParams,
  JobPayloadSchema,
  JobPullRequestSchema,
  JobResultAnswerSchema,
  JobTokenSchema,
  pullRequestPayload,
  resultPayload,
} from '../schemas.js';
import type { JobApi } from '../services/job-api.js';
import type { JobCall } from '../services/job-call.js';
import type { JobCodeHost, PullRequestInput } from '../services/job-code-host.js';
import { authenticatedJobToken, bearerJobToken } from '../services/job-tokens.js';

const TAG = 'jobs';
const JOB_AUTH = { strategy: 'job' };

/** The jobs section (9 operations), authenticated by the job's token (strategy `job`). */
export function jobRoutes(api: () => JobApi, codeHost: () => JobCodeHost): ServerRoute[] {
  const call = (request: Request): Promise<JobCall> =>
    api().load(
      requirePrincipal(request),
      (request.params as { id: string }).id,
      bearerJobToken(request.headers.authorization),
      authenticatedJobToken(request),
    );
  const route = (
    method: 'GET' | 'PUT' | 'POST',
    path: string,
    id: string,
    description: string,
    notes: string,
    response: unknown,
    handler: ServerRoute['handler'],
    validate: Record<string, unknown> = {},
  ): ServerRoute => ({
    method,
    path: `/v1/jobs/{id}${path}`,
    options: {
      id,
      tags: [TAG],
      description,
      notes,
      auth: JOB_AUTH,
      validate: { params: jobParams, ...validate },
      response: { status: { 200: response } },
      handler,
    } as ServerRoute['options'],
  });
  const common =
    'Authorization: Bearer <job token>. A token of another job (or organization) answers 404, an expired or revoked one 401.';
  return [
    route(
      'GET',
      '',
      'getJob',
      'The job payload; starts the job',
      `${common} The agent token may call it too. The AgentJob (ticket, repository, instructions, limits, branch, test_command, agent) plus attempt, lease_expires_at, deadline_at, heartbeat_interval_seconds, token_kind, agent_credential. The first call records the start (event \`started\`) and keeps the lease. 409 job_not_running when the job ended or was claimed again.`,
      JobPayloadSchema,
      async (request) => api().payload(await call(request)),
    ),
    route(
      'GET',
      '/agent-credential',
      'getJobAgentCredential',
      'The agent login, locked to this job until it ends',
      `${common} Job token only (403 for the agent token). 404 when the workspace stores no agent login; 409 credential_locked (details.job_id) while another live job holds it; 409 job_not_running.`,
      AgentCredentialSchema,
      async (request) => api().takeCredential(await call(request)),
    ),
    route(
      'PUT',
      '/agent-credential',
      'putJobAgentCredential',
      'Stores the refreshed agent login and releases the lock',
      `${common} Job token only. Body: credential (the refreshed login file; null only releases the lock). Stored with the secret box; the answer never repeats it. 409 credential_not_locked when this job does not hold it.`,
      AgentCredentialSchema,
      async (request) =>
        api().putCredential(await call(request), (request.payload as { credential: string | null }).credential),
      { payload: credentialPayload },
    ),
    route(
      'POST',
      '/events',
      'appendJobEvents',
      'Appends log events',
      `${common} The agent token may call it too. Body: one event {level, type, message, data} or {events: [...]} (up to 200). Masked again before storing (secret shapes, e-mail addresses, this job’s tokens by value). 409 job_not_running.`,
      EventsAcceptedSchema,
      async (request) => {
        const body = request.payload as { events?: JobEventInput[] } & JobEventInput;
        return api().events(await call(request), body.events ?? [body]);
      },
      { payload: eventsPayload },
    ),
    route(
      'POST',
      '/git-token',
      'createJobGitToken',
      'A short-lived installation token for the job’s repository',
      `${common} Job token only. Body: write (default: true for a fix job, false for a diagnosis). Push only for fix jobs: write true on a diagnosis job answers 403. 422 no_repository; 502/503 code host errors.`,
      GitTokenSchema,
      async (request) =>
        codeHost().gitToken(await call(request), (request.payload as { write?: boolean } | null) ?? {}),
      { payload: gitTokenPayload },
    ),
    route(
      'POST',
      '/heartbeat',
      'heartbeatJob',
      'Keeps the lease and reports a cancellation',
      `${common} The agent token may call it too. cancelled true when the job or its ticket was cancelled, ran past its deadline or ended: stop and post a cancelled result.`,
      HeartbeatSchema,
      async (request) => api().heartbeat(await call(request)),
    ),
    route(
      'POST',
      '/pull-request',
      'openJobPullRequest',
      'Opens or finds the pull request of the verified branch',
      `${common} Job token only, fix jobs only (409 not_a_fix_job). Body: head_sha*, tests_ran*, tests_passed*, verify_passed*, branch (must be the job’s service-prefixed branch, 422 branch_mismatch), draft. 409 fix_not_verified, branch_not_found, sha_mismatch (details.head_sha), copilot_mode (a person opens it). Idempotent: the attempt’s pull request is found before one is opened.`,
      JobPullRequestSchema,
      async (request) => codeHost().pullRequest(await call(request), request.payload as PullRequestInput),
      { payload: pullRequestPayload },
    ),
    route(
      'POST',
      '/result',
      'postJobResult',
      'The final result',
      `${common} Job token only. Body: the JobResult {status*, diagnosis, drafts, fix, cost_usd, error}. Idempotent by job: the same result again answers the same; a different one 409 result_conflict. The loop continues as for an in-process job; next_job_id names the runner job it chained (claim it with POST /v1/runner/claim {job_id}). 422 result_incomplete, branch_mismatch; 409 job_not_running.`,
      JobResultAnswerSchema,
      async (request) => api().result(await call(request), request.payload as JobResult),
      { payload: resultPayload },
    ),
    route(
      'POST',
      '/token',
      'renewJobToken',
      'A fresh job token and agent token',
      `${common} Job token only, while the job runs under this claim. The current tokens keep working until their own expiry.`,
      JobTokenSchema,
      async (request) => api().renew(await call(request)),
    ),
  ];
}
