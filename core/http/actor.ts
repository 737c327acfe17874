import { isIP } from 'node:net';
import type { Request, Server } from '@hapi/hapi';
import { principalOf, type Principal } from './auth.js';
import { unauthenticated } from './errors.js';

/**
 * Who acts, and from where: the one shape services take and the audit writer records.
 * `type`/`id` are the audit log's actor (a session is its user, an API token the token, a job the job,
 * a system actor the component's name); the request fields are null outside a request.
 */
export interface Actor {
  type: 'user' | 'token' | 'staff' | 'job' | 'system' | 'anonymous';
  id: string | null;
  email: string | null;
  orgId: string | null;
  userId: string | null;
  tokenId: string | null;
  /** The signed-in caller; null for anonymous and system actors. */
  principal: Principal | null;
  ip: string | null;
  userAgent: string | null;
  requestId: string | null;
}

/** The actor of a signed-in request: its principal and organization are always there. */
export interface SignedInActor extends Actor {
  type: 'user' | 'token' | 'job';
  principal: Principal;
  orgId: string;
}

/**
 * `server.trustProxy`: false (or 0) ignores X-Forwarded-For; a number n trusts that many proxy hops in front
 * of the service (the client is the n-th address from the right); true trusts every hop (the leftmost address,
 * only safe behind a proxy that overwrites the header).
 */
export type TrustProxy = boolean | number;

const USER_AGENT_MAX = 512;

const headerText = (headers: Record<string, unknown>, name: string): string | null => {
  const v = headers[name];
  const first: unknown = Array.isArray(v) ? v.join(',') : v;
  return typeof first === 'string' ? first : null;
};

/** The parts of a request the client address depends on (services outside hapi pass these). */
export interface ClientRequest {
  info: { remoteAddress: string; id?: string };
  headers: Record<string, unknown>;
}

/**
 * The client address under the configured trust rule. An address that is not an IP (a spoofed or
 * mangled header) never becomes the answer: the socket's address does.
 */
export function clientAddress(request: ClientRequest, trustProxy: TrustProxy): string {
  const socket = request.info.remoteAddress || 'unknown';
  if (trustProxy === false || trustProxy === 0) return socket;
  const forwarded = (headerText(request.headers, 'x-forwarded-for') ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (forwarded.length === 0) return socket;
  // Nearest first: the socket is the last proxy, each proxy appended the address it saw.
  const chain = [socket, ...forwarded.reverse()];
  const pick = trustProxy === true ? chain[chain.length - 1] : chain[Math.min(trustProxy, chain.length - 1)];
  return pick && isIP(pick) ? pick : socket;
}

export const userAgentOf = (request: ClientRequest): string | null =>
  headerText(request.headers, 'user-agent')?.slice(0, USER_AGENT_MAX) || null;

const NO_REQUEST = { ip: null, userAgent: null, requestId: null } as const;

/**
 * The audit identity of a signed-in caller: a session is its user, an API token is the token (with its
 * owner's email), a job is the job. The one mapping, so the log reads the same whoever wrote the entry.
 */
function auditIdentity(p: Principal): { type: 'user' | 'token' | 'job'; id: string | null; email: string | null } {
  if (p.kind === 'job') return { type: 'job', id: p.jobId ?? null, email: null };
  if (p.kind === 'token') return { type: 'token', id: p.tokenId ?? p.userId, email: p.email };
  return { type: 'user', id: p.userId, email: p.email };
}

export type RequestDetails = Pick<Actor, 'ip' | 'userAgent' | 'requestId'>;

/** Only the request fields: callers may pass a whole actor as the details, whose identity must not leak in. */
const detailsOf = (from: RequestDetails): RequestDetails => ({
  ip: from.ip,
  userAgent: from.userAgent,
  requestId: from.requestId,
});

/** The actor of a principal, with request details when there is a request. */
export function actorOfPrincipal(p: Principal, from: RequestDetails = NO_REQUEST): SignedInActor {
  return {
    ...auditIdentity(p),
    orgId: p.orgId,
    userId: p.userId,
    tokenId: p.tokenId ?? null,
    principal: p,
    ...detailsOf(from),
  };
}

/** A component acting on its own (a job, a consumer, a schedule): `name` is what the audit log shows. */
export function systemActor(name: string, orgId: string | null = null): Actor & { type: 'system' } {
  return { type: 'system', id: name, email: null, orgId, userId: null, tokenId: null, principal: null, ...NO_REQUEST };
}

/** Where a call came from, under the trust rule (services that get the raw request: sign-in, invitations). */
export function requestDetails(request: ClientRequest, trustProxy: TrustProxy): RequestDetails {
  return {
    ip: clientAddress(request, trustProxy),
    userAgent: userAgentOf(request),
    requestId: request.info.id ?? null,
  };
}

/** A user who has just proved who they are (sign-up, sign-in link, invitation, recovery) and holds no principal yet. */
export function userActor(
  user: { id: string; email: string | null; org_id: string },
  from: RequestDetails = NO_REQUEST,
): Actor & { type: 'user'; orgId: string } {
  return {
    type: 'user',
    id: user.id,
    email: user.email,
    orgId: user.org_id,
    userId: user.id,
    tokenId: null,
    principal: null,
    ...detailsOf(from),
  };
}

/** The actor of a request under a trust rule: signed in, or anonymous with the request details. */
export function requestActor(request: Request, trustProxy: TrustProxy): Actor {
  const from = requestDetails(request, trustProxy);
  const p = principalOf(request);
  return p ? actorOfPrincipal(p, from) : anonymousActor(from);
}

/** A caller who has not signed in, with where the call came from (sign-in, public forms). */
export function anonymousActor(from: RequestDetails): Actor & { type: 'anonymous' } {
  return {
    type: 'anonymous',
    id: null,
    email: null,
    orgId: null,
    userId: null,
    tokenId: null,
    principal: null,
    ...detailsOf(from),
  };
}

declare module '@hapi/hapi' {
  interface Request {
    /** The signed-in caller with the request details (401 when the route let an anonymous request through). */
    actor(): SignedInActor;
    /** The caller, signed in or anonymous, with the request details (sign-in, public forms). */
    actor(opts: { anonymous: true }): Actor;
  }
}

/** `request.actor()`: decorated once where the server is built, with the configured trust rule. */
export function registerActor(server: Server, trustProxy: TrustProxy): void {
  server.decorate('request', 'actor', function (this: Request, opts?: { anonymous: true }): Actor {
    const actor = requestActor(this, trustProxy);
    if (!opts?.anonymous && !actor.principal) throw unauthenticated();
    return actor;
  });
}
