import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { builtinPlugins } from '../../index.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { Answer, ApiError, Method } from '../../../test/helpers/api-types.js';
import { callOn, type AppCall, type Call, type Caller } from '../../../test/helpers/call.js';
import { signUp, type SignedUp, type TestRole } from '../../../test/helpers/accounts.js';

/** An answer: status, parsed body, headers, payload (test/helpers/call.ts); its body is the operation's (api-types.ts). */
export type Reply<M extends Method, U extends string> = Call<Answer<M, U>>;

type Who = Caller | null;

export interface ProactiveHarness {
  app: App;
  call: AppCall;
  owner(): Promise<SignedUp>;
  member(owner: SignedUp, role: TestRole, workspaceIds?: string[]): Promise<SignedUp>;
  workspace(who: SignedUp, patch?: Record<string, unknown>): Promise<{ id: string }>;
  /** POST /v1/connectors as `who` in the workspace (`body`: kind, name, config, secrets); the answer as it is. */
  createConnector(
    who: Who,
    workspaceId: string,
    body: Record<string, unknown>,
  ): Promise<Reply<'POST', '/v1/connectors'>>;
  endpoint(who: SignedUp, workspaceId: string): Promise<{ id: string; token: string; ingestUrl: string }>;
  ingest(connectorId: string, token: string, body: unknown): Promise<Reply<'POST', '/v1/ingest/{connectorId}'>>;
  /** The answer of GET /v1/error-groups for the workspace, as `who` (throws unless 200). */
  errorGroups(who: Who, workspaceId: string): Promise<Answer<'GET', '/v1/error-groups'>>;
  /** A repository row for the workspace (the codehost plugin owns the API; tests need only the row). */
  repository(orgId: string, workspaceId: string): Promise<void>;
  setPlan(orgId: string, plan: string): Promise<void>;
  /** Runs the outbox relay and waits until the bus has handled what it published. */
  settle(): Promise<void>;
}

/** The issues of an `invalid_settings` answer, each written `code@field` (as refusedSettings in the kit). */
export const settingsIssues = (res: Call<Partial<ApiError>>): string[] =>
  (res.body.details as { errors: Array<{ code: string; field: string }> }).errors.map((e) => `${e.code}@${e.field}`);

/** The polling columns of a polling connector's row (its next_poll_at is set). */
export interface ConnectorPollState {
  status: string;
  cursor: string | null;
  next_poll_at: Date | string;
  last_error_code: string | null;
  last_error: string | null;
  error_count: number;
}

/** A connector's polling state as stored: where it is, when it polls next, its last error. */
export async function connectorPollState(app: App, id: string): Promise<ConnectorPollState> {
  const row = await app
    .db('connectors')
    .where({ id })
    .first<ConnectorPollState | undefined>(
      'status',
      'cursor',
      'next_poll_at',
      'last_error_code',
      'last_error',
      'error_count',
    );
  if (!row) throw new Error(`no connector ${id}`);
  return row;
}

/** A browser error's stack: `fn` in the shop's bundle `file` at `line`, called from React's (vendor) dispatch. */
export const browserStack = (fn: string, file: string, line: number): string =>
  `TypeError: Cannot read properties of undefined\n    at ${fn} (https://shop.example.com/static/${file}:${line}:17)\n    at dispatch (https://shop.example.com/node_modules/react-dom/cjs/react-dom.production.min.js:1:200)`;

/** Plugins these tests need; the others are switched off, so the tests do not depend on unrelated sections. */
const NEEDED = new Set(['mail', 'accounts', 'workspaces', 'codehost', 'billing', 'tickets', 'proactive']);

export async function startProactive(t: Test, overrides: Record<string, unknown> = {}): Promise<ProactiveHarness> {
  const off = Object.fromEntries(
    Object.keys(builtinPlugins)
      .filter((n) => !NEEDED.has(n))
      .map((n) => [n, { enabled: false }]),
  );
  const plugins = { ...off, ...((overrides.plugins as Record<string, unknown> | undefined) ?? {}) };
  const app = await startTestApp(t, { ...overrides, plugins });
  const call = callOn(app);
  const h: ProactiveHarness = {
    app,
    call,
    owner: () => signUp(app),
    async member(owner, role, workspaceIds) {
      const { addMember } = await import('../../../test/helpers/accounts.js');
      return addMember(app, owner, { role, workspaceIds });
    },
    async workspace(who, patch) {
      const res = await call(who, 'POST', '/v1/workspaces', { name: `WS ${randomBytes(3).toString('hex')}` });
      if (res.status !== 201) throw new Error(`workspace: ${res.status} ${res.payload}`);
      if (patch) {
        const up = await call(who, 'PATCH', `/v1/workspaces/${res.body.id}`, patch);
        if (up.status !== 200) throw new Error(`workspace patch: ${up.status} ${up.payload}`);
      }
      return { id: res.body.id };
    },
    createConnector: (who, workspaceId, body) =>
      call(who, 'POST', '/v1/connectors', { workspace_id: workspaceId, ...body }),
    async endpoint(who, workspaceId) {
      const res = await h.createConnector(who, workspaceId, { kind: 'endpoint', name: 'Backend' });
      if (res.status !== 201) throw new Error(`connector: ${res.status} ${res.payload}`);
      const connector = res.body.connector;
      return { id: connector.id, token: res.body.token!, ingestUrl: connector.ingest_url! };
    },
    ingest: (connectorId, token, body) =>
      call(null, 'POST', `/v1/ingest/${connectorId}`, body, {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
      }),
    async errorGroups(who, workspaceId) {
      const res = await call(who, 'GET', `/v1/error-groups?workspace_id=${workspaceId}`);
      if (res.status !== 200) throw new Error(res.payload);
      return res.body;
    },
    async repository(orgId, workspaceId) {
      const inst = `chi_${randomBytes(6).toString('hex')}`;
      await app.db('codehost_installations').insert({
        id: inst,
        org_id: orgId,
        host: 'local',
        external_id: inst,
        account_login: 'acme',
        account_type: 'Organization',
        repository_selection: 'all',
      });
      await app.db('repositories').insert({
        id: `repo_${randomBytes(6).toString('hex')}`,
        org_id: orgId,
        workspace_id: workspaceId,
        installation_id: inst,
        host: 'local',
        external_id: inst,
        full_name: 'acme/shop',
        html_url: 'http://localhost/acme/shop',
        clone_url: 'http://localhost/acme/shop.git',
        default_branch: 'main',
        is_public: false,
      });
    },
    async setPlan(orgId, plan) {
      await app.db('organizations').where({ id: orgId }).update({ plan });
    },
    async settle() {
      for (let i = 0; i < 40; i++) {
        const pending = (await app.db('outbox').whereNull('published_at').count({ n: '*' }).first()) as
          { n: number | string } | undefined;
        if (Number(pending?.n ?? 0) === 0) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      await new Promise((r) => setTimeout(r, 300));
    },
  };
  return h;
}
