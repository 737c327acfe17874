import type { Request } from '@hapi/hapi';
import type { AuthResolver, Principal } from '../../../core/http/auth.js';
import { unauthenticated } from '../../../core/http/errors.js';
import { hashToken } from '../../../core/security/tokens.js';
import { RunnerJobToken } from '../models/index.js';
import type { RunnerDeps } from './deps.js';

const BEARER = /^Bearer\s+(pw_(?:job|agent)_[A-Za-z0-9_-]+)\s*$/i;

/** The job or agent token of a request's Authorization header, if it carries one. */
export function bearerJobToken(header: unknown): string | null {
  const m = typeof header === 'string' ? BEARER.exec(header) : null;
  return m ? m[1] : null;
}

/** Where the resolver leaves the token row it authenticated, so the route does not read it again. */
type WithJobToken = { runnerJobToken?: RunnerJobToken };

/** The token row this request was authenticated with (strategy `job`), if any. */
export function authenticatedJobToken(request: Request): RunnerJobToken | undefined {
  return (request.app as WithJobToken).runnerJobToken;
}

/**
 * `Authorization: Bearer pw_job_…|pw_agent_…` → a `job` principal scoped to one job of one
 * organization (strategy `job`). Unknown, revoked and expired tokens answer 401; the route then
 * checks that the path names the token's job (404 otherwise).
 */
export function jobTokenResolver(d: Pick<RunnerDeps, 'db'>): AuthResolver {
  return {
    strategy: 'job',
    name: 'runner.job_token',
    async authenticate(request) {
      const token = bearerJobToken(request.headers.authorization);
      if (!token) return null;
      const row = await RunnerJobToken.query(d.db)
        .acrossOrgs('job token lookup')
        .where({ token_hash: hashToken(token) })
        .limit(1)
        .first();
      if (!row || row.revoked_at) throw unauthenticated('This job token is not valid');
      if (new Date(row.expires_at).getTime() <= Date.now())
        throw unauthenticated('This job token has expired; renew it with POST /v1/jobs/{id}/token before it expires');
      (request.app as WithJobToken).runnerJobToken = row;
      const principal: Principal = {
        kind: 'job',
        userId: null,
        orgId: row.org_id,
        role: 'admin',
        staff: false,
        email: null,
        locale: 'en',
        workspaceIds: [],
        jobId: row.job_id,
        tokenId: row.id,
      };
      return principal;
    },
  };
}
