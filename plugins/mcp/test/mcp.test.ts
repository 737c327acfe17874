import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Knex } from 'knex';
import t, { type Test } from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { onPlan, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { ApiError, Schema } from '../../../test/helpers/api-types.js';
import {
  call,
  connectRepository,
  diagnosisJob,
  localHost,
  MAIL_SECRET,
  receiveEmail,
  waitFor,
  type AttemptRow,
} from '../../fixes/test/helpers.js';

const CART = 'exports.cartTotal = (items) => items.reduce((sum, i) => sum + i.price, 0);\n';
const FIXED = 'exports.cartTotal = (items) => items.reduce((sum, i) => sum + i.price * i.qty, 0);\n';
const TEST =
  "const assert = require('node:assert');\nassert.strictEqual(require('./cart.js').cartTotal([{ price: 2, qty: 3 }]), 6);\n";

// One app for the file: the offline defaults with agent-mcp next to the builtin executor, listening on a free port.
const app = await startTestApp(t, {
  adapters: {
    codeHost: 'codehost-local',
    agent: ['agent-builtin', 'agent-mcp'],
    options: {
      'mail-outbox': { webhookSecret: MAIL_SECRET },
      'codehost-local': { webhookSecret: 'mcp-test-codehost-secret-0123' },
    },
  },
  plugins: {
    fixes: { enabled: true, options: { pollMs: 100, leaseMs: 1500, backoffMs: [50, 100] } },
    mcp: { enabled: true },
  },
});
const db = app.db as Knex;
const listener = app.server.listener;
await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
t.teardown(() => new Promise<void>((resolve) => listener.close(() => resolve())));
const base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;

async function mcpWorkspace(owner: SignedUp, name: string): Promise<Schema<'Workspace'>> {
  const res = await call(app, owner, 'POST', '/v1/workspaces', { name });
  if (res.status !== 201) throw new Error(`workspace: ${res.status} ${JSON.stringify(res.body)}`);
  const upd = await call(app, owner, 'PATCH', `/v1/workspaces/${res.body.id}`, {
    execution_mode: 'mcp',
    autonomy: 'approve',
    test_command: 'node test.js',
    confidence_threshold: 0.5,
  });
  if (upd.status !== 200) throw new Error(`workspace settings: ${upd.status} ${JSON.stringify(upd.body)}`);
  return upd.body;
}

async function apiToken(who: SignedUp, workspaceIds: string[] | null = null): Promise<string> {
  const res = await call(app, who, 'POST', '/v1/tokens', { name: 'ide', role: 'admin', workspace_ids: workspaceIds });
  if (res.status !== 201) throw new Error(`token: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.token;
}

async function connect(t: Test, token: string): Promise<Client> {
  const client = new Client({ name: 'patchwell-test-ide', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/v1/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  t.teardown(() => client.close());
  return client;
}

/** Lets the in-process worker look for work and finish what it took (it must take no agent-mcp job). */
async function settledWorker(): Promise<void> {
  const worker = app.container.resolve('fixWorker') as { kick(): void; idle(): Promise<void> };
  worker.kick();
  await worker.idle();
}

/** A waiting job as the tools name it. */
interface WaitingJob {
  id: string;
  kind: 'diagnose' | 'fix';
}

/** What each tool answers (plugins/mcp/services/mcp-service.ts). */
interface ToolAnswers {
  list_tickets: {
    items: Array<{ id: string; workspace_id: string; subject: string; waiting_job: WaitingJob | null }>;
    next_cursor: string | null;
  };
  /** The ticket page of GET /v1/tickets/{id}, and the job waiting for the agent. */
  get_ticket: { ticket: Schema<'Ticket'>; waiting_job: (WaitingJob & Record<string, unknown>) | null };
  submit_diagnosis: { job_id: string; status: string; ticket_state: string; next_job: WaitingJob | null };
  submit_draft: { draft_id: string; kind: string; status: string; created_at: string };
  submit_fix: Record<string, unknown>;
}

/** A refusal of the service as a tool result (isError): its status, code, message and details. */
type Refusal = { error: true; status: number } & Pick<ApiError, 'code' | 'message' | 'details'>;

/** A tool's answer: the structured content, or the refusal {status, code, …} with isError. */
async function tool<N extends keyof ToolAnswers>(
  client: Client,
  name: N,
  args: Record<string, unknown>,
): Promise<ToolAnswers[N] & Partial<Refusal>> {
  const res = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const [content] = res.content;
  if (content?.type !== 'text') throw new Error(`${name}: no text content`);
  const body = JSON.parse(content.text) as ToolAnswers[N] & Partial<Refusal>;
  return res.isError ? { error: true, ...body } : body;
}

t.test(
  'an IDE agent runs the loop through MCP: diagnosis, draft, fix branch to the attempt awaiting approval',
  async (t) => {
    const owner = await signUp(app, { orgName: 'Acme' });
    await onPlan(app, owner.organization.id, 'growth'); // fix credits: a submitted fix is paid for
    const ws = await mcpWorkspace(owner, 'Shop');
    const repo = await connectRepository(app, owner, ws.id, 'shop', {
      'README.md': '# Shop\n',
      'cart.js': CART,
      'test.js': TEST,
    });
    const token = await apiToken(owner, [ws.id]);
    const client = await connect(t, token);
    t.match(client.getServerVersion(), { name: 'patchwell' }, 'initialized');
    const tools = await client.listTools();
    t.same(tools.tools.map((x) => x.name).sort(), [
      'get_ticket',
      'list_tickets',
      'submit_diagnosis',
      'submit_draft',
      'submit_fix',
    ]);
    t.match(
      tools.tools.find((x) => x.name === 'submit_fix'),
      { inputSchema: { type: 'object', required: ['ticket_id', 'branch', 'tests_ran', 'tests_passed'] } },
    );

    const ticketId = await receiveEmail(app, ws.inbound_address, {
      subject: 'Cart total is wrong',
      body: 'The cart total ignores the quantity. cartTotal is wrong at checkout.',
    });
    const job = await diagnosisJob(db, ticketId);
    t.match(job, { kind: 'diagnose', executor: 'agent-mcp', mode: 'mcp' });
    // agent-mcp runs remote: the in-process worker leaves the job queued for the IDE agent.
    await settledWorker();
    t.match(
      await db('fix_jobs').where({ id: job.id }).first(),
      { status: 'queued', lease_owner: null, attempts: 0 },
      'not claimed by the worker',
    );

    const listed = await tool(client, 'list_tickets', { waiting_only: true });
    t.match(listed.items, [
      {
        id: ticketId,
        workspace_id: ws.id,
        subject: 'Cart total is wrong',
        waiting_job: { id: job.id, kind: 'diagnose' },
      },
    ]);
    t.equal(
      (await tool(client, 'list_tickets', { waiting_only: true, q: 'cart' })).items.length,
      1,
      'search within the queue',
    );
    t.equal((await tool(client, 'list_tickets', { waiting_only: true, q: 'zebra' })).items.length, 0);
    const all = await tool(client, 'list_tickets', { limit: 10 });
    t.equal(all.items.length, 1);
    const read = await tool(client, 'get_ticket', { ticket_id: ticketId });
    t.match(read, {
      ticket: {
        id: ticketId,
        subject: 'Cart total is wrong',
        diagnosis: null,
        drafts: { items: [], total: 0 },
        fixes: [],
        jobs: { items: [{ id: job.id, status: 'queued' }] },
      },
      waiting_job: { id: job.id, kind: 'diagnose', repository: { full_name: repo.full_name } },
    });
    t.notOk('diagnosis' in read, 'the page is the ticket: nothing beside it but the waiting job');

    t.match(
      await tool(client, 'submit_fix', { ticket_id: ticketId, branch: 'x', tests_ran: true, tests_passed: true }),
      { error: true, status: 409, code: 'no_waiting_job' },
      'no fix job yet',
    );
    const dx = await tool(client, 'submit_diagnosis', {
      ticket_id: ticketId,
      category: 'bug',
      confidence: 0.92,
      root_cause_md: 'cartTotal ignores `qty`.',
      references: [{ path: 'cart.js', line_start: 1, line_end: 1, symbol: 'cartTotal' }],
      cost_usd: 0.1,
    });
    t.match(dx, { job_id: job.id, status: 'succeeded', ticket_state: 'fixing', next_job: { kind: 'fix' } });
    t.match(
      await tool(client, 'submit_diagnosis', {
        ticket_id: ticketId,
        category: 'bug',
        confidence: 0.9,
        root_cause_md: 'again',
      }),
      { error: true, status: 409, code: 'no_waiting_job' },
      'once',
    );
    t.match(await db('fix_diagnoses').where({ ticket_id: ticketId }).first(), {
      job_id: job.id,
      category: 'bug',
      outcome: 'fix_queued',
    });
    t.ok(
      await db('fix_job_events').where({ job_id: job.id, type: 'mcp_result' }).first(),
      'who submitted is in the job log',
    );

    await settledWorker();
    t.match(
      await db('fix_jobs').where({ id: dx.next_job!.id }).first(),
      { kind: 'fix', status: 'queued', lease_owner: null },
      'the fix job waits queued',
    );
    const withFix = await tool(client, 'get_ticket', { ticket_id: ticketId });
    const branch = `patchwell/${ticketId}-1`;
    t.match(withFix, {
      ticket: {
        diagnosis: {
          category: 'bug',
          confidence: 0.92,
          references: [{ path: 'cart.js', symbol: 'cartTotal', line_start: 1 }],
          outcome: 'fix_queued',
          history_count: 1,
        },
        fixes: [{ number: 1, status: 'running', branch }],
      },
      waiting_job: { kind: 'fix', branch, test_command: 'node test.js', instructions: /cartTotal ignores/ },
    });
    const page = await call(app, owner, 'GET', `/v1/tickets/${ticketId}`);
    t.same(withFix.ticket.fixes, page.body.fixes, 'the same page as GET /v1/tickets/{id}');

    t.match(
      await tool(client, 'submit_fix', {
        ticket_id: ticketId,
        branch: 'feature/other',
        tests_ran: true,
        tests_passed: true,
      }),
      { error: true, status: 422, code: 'branch_mismatch', details: { branch } },
    );
    t.match(
      await tool(client, 'submit_fix', { ticket_id: ticketId, branch, tests_ran: true, tests_passed: true }),
      { error: true, status: 409, code: 'branch_not_found' },
      'push first',
    );
    // The IDE agent pushes the fix to the job's branch (the developer's own git credentials).
    const head = await localHost(app).commitFiles(repo.full_name, {
      branch,
      base: 'main',
      files: { 'cart.js': FIXED },
      message: 'Fix cart total',
    });
    t.match(
      await tool(client, 'submit_fix', {
        ticket_id: ticketId,
        branch,
        head_sha: 'b'.repeat(40),
        tests_ran: true,
        tests_passed: true,
      }),
      { error: true, status: 409, code: 'sha_mismatch', details: { head_sha: head } },
    );
    const fix = await tool(client, 'submit_fix', {
      ticket_id: ticketId,
      branch,
      head_sha: head,
      tests_ran: true,
      tests_passed: true,
      cost_usd: 0.3,
    });
    t.match(fix, { status: 'succeeded', branch, head_sha: head, verified: true, ticket_state: 'awaiting_approval' });

    const attempt = await waitFor(async () => {
      const a = await db('fix_attempts').where({ ticket_id: ticketId }).first<AttemptRow | undefined>();
      return a?.status === 'verified' && a.pr_number ? a : null;
    }, 'the pull request of the verified attempt');
    t.match(attempt, { number: 1, branch, head_sha: head, tests_ran: true, tests_passed: true, verify_passed: true });
    const ticket = await waitFor(async () => {
      const r = await call(app, owner, 'GET', `/v1/tickets/${ticketId}`);
      return r.body.state === 'awaiting_approval' ? r.body : null;
    }, 'awaiting approval');
    t.equal(ticket.state, 'awaiting_approval');
    t.match(await tool(client, 'get_ticket', { ticket_id: ticketId }), {
      ticket: { fixes: [{ status: 'verified', head_sha: head, pull_request: { number: attempt.pr_number } }] },
      waiting_job: null,
    });

    // From the approval on, the loop is the same whoever wrote the fix: merge, release, notice, status page.
    const ok = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/approve`, {
      fix_attempt_id: attempt.id,
      approved_sha: head,
    });
    t.equal(ok.status, 200, JSON.stringify(ok.body));
    const released = await waitFor(
      async () => {
        const r = await call(app, owner, 'GET', `/v1/tickets/${ticketId}`);
        return r.body.state === 'customer_notified' ? r.body : null;
      },
      'the release and the notice',
      30_000,
    );
    t.match(released, { public_state: 'resolved', resolved_version: String });
    t.match(
      await db('fix_releases').where({ ticket_id: ticketId }),
      [{ status: 'released', approved_sha: head }],
      'one release at the approved commit',
    );
    t.equal(
      (await db('mail_messages').where({ template: 'fixes.release_notice' })).length,
      1,
      'one notice to the customer',
    );

    // A question: a draft of the IDE agent, one at a time.
    const q = await receiveEmail(app, ws.inbound_address, {
      subject: 'How do I export?',
      body: 'Where is the export button?',
    });
    const draft = await tool(client, 'submit_draft', {
      ticket_id: q,
      kind: 'reply',
      body_md: 'Open Settings, then Export.',
    });
    t.match(draft, { draft_id: /^/, kind: 'reply', status: 'draft' });
    t.match(await tool(client, 'submit_draft', { ticket_id: q, kind: 'reply', body_md: 'Again' }), {
      error: true,
      status: 409,
      code: 'open_draft_exists',
    });
    t.match(await tool(client, 'get_ticket', { ticket_id: q }), {
      ticket: { drafts: { items: [{ id: draft.draft_id, body_md: 'Open Settings, then Export.', status: 'draft' }] } },
    });
  },
);

t.test(
  'another organization sees none of the tickets; bad input is a JSON-RPC error; the endpoint wants an API token',
  async (t) => {
    const owner = await signUp(app, { orgName: 'Owner Co' });
    const ws = await mcpWorkspace(owner, 'Main');
    const ticketId = await receiveEmail(app, ws.inbound_address, {
      subject: 'Private report',
      body: 'Something private broke.',
    });
    const other = await signUp(app, { orgName: 'Other Co' });
    const foreign = await connect(t, await apiToken(other));
    t.same((await tool(foreign, 'list_tickets', {})).items, [], 'empty list');
    t.same((await tool(foreign, 'list_tickets', { waiting_only: true })).items, []);
    t.match(await tool(foreign, 'get_ticket', { ticket_id: ticketId }), {
      error: true,
      status: 404,
      code: 'not_found',
    });
    t.match(
      await tool(foreign, 'submit_diagnosis', {
        ticket_id: ticketId,
        category: 'bug',
        confidence: 0.9,
        root_cause_md: 'x',
      }),
      { error: true, status: 404 },
    );
    t.match(await tool(foreign, 'submit_draft', { ticket_id: ticketId, kind: 'reply', body_md: 'x' }), {
      error: true,
      status: 404,
    });

    // A token scoped to no workspace of the same organization sees nothing of this one.
    const scoped = await connect(t, await apiToken(owner, []));
    t.same((await tool(scoped, 'list_tickets', {})).items, []);
    t.match(await tool(scoped, 'get_ticket', { ticket_id: ticketId }), { error: true, status: 403 });

    const mine = await connect(t, await apiToken(owner));
    t.match(await tool(mine, 'get_ticket', { ticket_id: ticketId }), { ticket: { id: ticketId } });
    await t.rejects(
      mine.callTool({ name: 'get_ticket', arguments: {} }),
      { code: ErrorCode.InvalidParams },
      'missing ticket_id',
    );
    await t.rejects(
      mine.callTool({
        name: 'submit_diagnosis',
        arguments: { ticket_id: ticketId, category: 'weird', confidence: 2, root_cause_md: '' },
      }),
      McpError,
    );
    await t.rejects(mine.callTool({ name: 'list_tickets', arguments: { limit: 'many' } }), {
      code: ErrorCode.InvalidParams,
    });
    await t.rejects(
      mine.callTool({ name: 'drop_tables', arguments: {} }),
      { code: ErrorCode.InvalidParams },
      'unknown tool',
    );

    const token = await apiToken(owner);
    const raw = (body: string, headers: Record<string, string> = {}) =>
      fetch(`${base}/v1/mcp`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          ...headers,
        },
      });
    t.equal((await raw('{not json')).status, 400, 'malformed JSON');
    t.equal(
      (await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { accept: 'application/json' }))
        .status,
      406,
      'the client must accept both answer types',
    );
    t.equal((await raw(JSON.stringify({ hello: 'world' }))).status, 400, 'not JSON-RPC');
    t.equal(
      (await raw(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }), { authorization: '' })).status,
      401,
      'no token',
    );
    const withCookie = await app.server.inject({
      method: 'POST',
      url: '/v1/mcp',
      headers: { cookie: owner.cookie, accept: 'application/json, text/event-stream' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    t.match(
      { status: withCookie.statusCode, body: JSON.parse(withCookie.payload) as Partial<ApiError> },
      { status: 403, body: { code: 'forbidden' } },
      'a session is not an API token',
    );
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/v1/mcp`, {
        method,
        headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
      });
      t.equal(res.status, 405, `${method}: no stream, no session`);
      t.equal(res.headers.get('allow'), 'POST');
    }
    const doc = JSON.parse((await app.server.inject({ method: 'GET', url: '/v1/openapi.json' })).payload) as {
      paths: Record<string, Record<string, unknown>>;
    };
    t.same(Object.keys(doc.paths['/v1/mcp']), ['post'], 'one operation');
    t.match(doc.paths['/v1/mcp'].post, { operationId: 'mcp', tags: ['mcp'] });
    const direct = await raw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'get_ticket', arguments: { ticket_id: 42 } },
      }),
    );
    t.equal(direct.status, 200);
    t.match(
      await direct.json(),
      { jsonrpc: '2.0', id: 7, error: { code: ErrorCode.InvalidParams } },
      'a JSON-RPC error, not a 500',
    );
  },
);
