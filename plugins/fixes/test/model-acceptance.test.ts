import t from 'tap';
import type { Knex } from 'knex';
import { signUp } from '../../../test/helpers/accounts.js';
import { testSandboxOptions } from '../../../test/helpers/sandbox.js';
import { loadScenarios, startModelPeer } from '../../../test/peers/model-api.js';
import { turnsDir } from '../../../adapters/agent-model/test/helpers.js';
import { BUG_REPORT, REPO_FILES } from './fixtures/cart.js';
import {
  call,
  connectRepository,
  createWorkspace,
  grantFixCredits,
  receiveEmail,
  startFixesApp,
  type JobEventRow,
  type JobRow,
  type TicketRow,
  fixWithPullRequest,
  ticketInState,
} from './helpers.js';

const KEY = 'sk-model-test-9f8e7d6c5b4a';

void t.test(
  'acceptance with agent-model against a local model API peer: email → model diagnosis → model fix in the sandbox → ' +
    'PR with passing tests; an invalid answer escalates',
  async (t) => {
    const peer = await startModelPeer('openai', loadScenarios(turnsDir('openai')));
    t.teardown(() => peer.close());
    const app = await startFixesApp(
      t,
      {},
      {},
      {
        list: ['agent-builtin', 'agent-model'],
        options: {
          'agent-model': {
            provider: 'openai',
            baseUrl: peer.baseUrl,
            model: 'gpt-4o-mini',
            prices: { 'gpt-4o-mini': { input: 0.15, output: 0.6 } },
            ...testSandboxOptions,
          },
        },
      },
    );
    const db = app.db as Knex;
    const owner = await signUp(app, { orgName: 'Acme' });
    await grantFixCredits(app, owner.organization.id);
    const ws = await createWorkspace(app, owner, 'Shop', {
      autonomy: 'approve',
      test_command: 'node test.js',
      confidence_threshold: 0.5,
    });
    const settings = await call(app, owner, 'PUT', `/v1/onboarding/execution/${ws.id}`, {
      mode: 'managed',
      agent: 'agent_1',
      auth: 'api-key',
      agent_key: KEY,
    });
    t.equal(settings.status, 200, JSON.stringify(settings.body));
    await connectRepository(app, owner, ws.id, 'shop', REPO_FILES);

    const id = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    const attempt = await fixWithPullRequest(db, id, 'the verified fix with its pull request');
    t.match(attempt, { status: 'verified', tests_passed: true, verify_passed: true });
    t.match((await call(app, owner, 'GET', `/v1/tickets/${id}`)).body, { state: 'awaiting_approval', category: 'bug' });
    const jobs = (await db('fix_jobs').where({ ticket_id: id }).orderBy('created_at')) as JobRow[];
    t.same(
      jobs.map((j): unknown[] => [j.kind, j.executor]),
      [
        ['diagnose', 'agent-model'],
        ['fix', 'agent-model'],
      ],
      'both jobs ran on the model-backed executor',
    );
    const jobIds = jobs.map((j) => j.id);
    const events = (await db('fix_job_events').whereIn('job_id', jobIds)) as JobEventRow[];
    t.same(
      events.filter((e) => e.type === 'tool_call').map((e) => e.data.tool),
      ['read_file', 'apply_patch', 'run_tests'],
      'the tool calls are in the job log',
    );
    t.notMatch(JSON.stringify(events), KEY, 'the key is in no job event');
    t.ok(
      peer.requests.length >= 5 && peer.requests.every((r) => r.authorization === `Bearer ${KEY}`),
      "every model call carried the workspace's model key credential",
    );

    const bad = await receiveEmail(app, ws.inbound_address, {
      subject: 'Invoices are missing',
      body: 'Since Monday the invoices of March are missing from the list.',
    });
    const escalated = await ticketInState(app, owner, bad, 'escalated', 'the escalation after two invalid answers');
    t.equal(escalated.id, bad);
    const row = (await db('tickets').where({ id: bad }).first()) as TicketRow;
    t.match(
      row.escalation_reason,
      /invalid_model_output\): the model's answer was not a valid diagnosis twice: /,
      'the reason and the problems are on the ticket',
    );
  },
);
