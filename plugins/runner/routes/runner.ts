import type { ServerRoute } from '@hapi/hapi';
import { claimPayload, registerPayload, RunnerClaimSchema, RunnerSchema } from '../schemas.js';
import type { Runners } from '../services/runners.js';

const TAG = 'runner';

/** The runner section (2 operations; paths not shown in the spec, see docs/runner.md). */
export function runnerRoutes(runners: () => Runners): ServerRoute[] {
  return [
    {
      method: 'POST',
      path: '/v1/runner/register',
      options: {
        id: 'registerRunner',
        tags: [TAG],
        description: 'Registers a runner for a workspace, rotates its token or revokes it',
        notes:
          'Body: workspace_id*, name (default `default`), revoke (bool), agent_login (the agent login file, ' +
          'stored encrypted for the jobs’ agent-credential). A new name answers 201 with the runner token ' +
          '(`pw_runner_…`, shown once); the same name again rotates the token (200; the old one stops at ' +
          'once); revoke true ends it (200, token null; its job tokens stop too). Owners and admins. Audited.',
        validate: { payload: registerPayload },
        response: { status: { 200: RunnerSchema, 201: RunnerSchema } },
        plugins: { patchwell: { roles: ['owner', 'admin'], successStatus: 201 } },
        handler: async (request, h) => {
          const { created, runner } = await runners().register(
            request.actor(),
            request.payload as { workspace_id: string; name: string; revoke?: boolean; agent_login?: string | null },
          );
          return h.response(runner).code(created ? 201 : 200);
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/runner/claim',
      options: {
        id: 'claimRunnerJob',
        tags: [TAG],
        description: 'Hands a registered runner the next queued job of its workspace',
        notes:
          'Authorization: Bearer <runner token>. Body: job_id (optional: claim that job, e.g. the next_job_id ' +
          'of a result). 200 with the job id, a job token and an agent token (short-lived, scoped to this job) ' +
          'and the lease; 204 when nothing waits. 404 for a job_id of another workspace; 409 ' +
          'job_not_claimable; 401 for a missing, wrong or revoked runner token; 429 past the claim rate.',
        auth: false,
        validate: { payload: claimPayload },
        response: { status: { 200: RunnerClaimSchema } },
        handler: async (request, h) => {
          const svc = runners();
          const runner = await svc.authenticate(request.headers.authorization);
          const claimed = await svc.claim(runner, (request.payload as { job_id?: string } | null) ?? {});
          return claimed ? h.response(claimed).code(200) : h.response().code(204);
        },
      },
    },
  ];
}
