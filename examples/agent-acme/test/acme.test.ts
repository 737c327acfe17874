import t from 'tap';
import { fileURLToPath } from 'node:url';
import { kitJob, recordingIO, runAgentExecutorContract } from '../../../test/contracts/agent-executor.js';
import acme, { AcmeAgentExecutor, parseLine } from '../index.js';

const tool = fileURLToPath(new URL('../bin/acme-agent.mjs', import.meta.url));
const create = (mode = 'ok', extra: Record<string, unknown> = {}) =>
  new AcmeAgentExecutor(AcmeAgentExecutor.validateOptions({ command: [process.execPath, tool, mode], ...extra }));

t.test('a partner agent passes the AgentExecutor contract kit', (t) =>
  runAgentExecutorContract(t, {
    name: 'agent-acme',
    mode: 'managed',
    completes: true,
    create: () => create(),
    module: acme,
    validateOptions: (o) => AcmeAgentExecutor.validateOptions(o),
    options: {
      valid: { command: ['acme-agent'] },
      invalid: [
        { options: { command: [] }, key: 'command' },
        { options: { timeoutMs: 10 }, key: 'timeoutMs' },
      ],
    },
  }),
);

t.test("the tool's lines become job events and its result the job's", async (t) => {
  const io = recordingIO();
  await create().start(kitJob('diagnose'), io);
  t.same(
    io.events.map((e) => e.type),
    ['phase', 'output'],
    'events in order; the result line is the result, not an event',
  );
  t.match(io.results, [{ status: 'succeeded', cost_usd: 0.01, diagnosis: { category: 'bug', confidence: 0.8 } }]);
});

t.test('a tool that exits without a result fails the job with the reason', async (t) => {
  const io = recordingIO();
  await create('crash').start(kitJob('diagnose'), io);
  t.match(io.results, [
    { status: 'failed', error: { code: 'agent_failed', detail: /exited with 3 without a result/ } },
  ]);
});

t.test('a tool that does not answer in time is killed and the job fails as timed out', async (t) => {
  const io = recordingIO();
  await create('slow', { timeoutMs: 1000 }).start(kitJob('diagnose'), io);
  t.match(io.results, [{ status: 'failed', error: { code: 'timed_out' } }]);
});

t.test('cancel stops the running tool and the job ends cancelled', async (t) => {
  const executor = create('slow');
  const job = kitJob('diagnose');
  const io = recordingIO();
  const running = executor.start(job, io);
  await new Promise((r) => setTimeout(r, 300));
  await executor.cancel(job.id);
  await running;
  t.match(io.results, [{ status: 'cancelled' }]);
});

t.test('fix jobs are refused: the tool only diagnoses', async (t) => {
  await t.rejects(create().start(kitJob('fix'), recordingIO()), { code: 'not_supported' });
});

t.test('lines are read defensively', (t) => {
  t.match(parseLine('not json'), { event: { type: 'output', message: 'not json' } });
  t.match(parseLine('{"event":{"level":"shout","message":"x"}}'), { event: { level: 'info', message: 'x' } });
  t.match(parseLine('{"result":{"status":"succeeded","cost_usd":0}}'), { result: { status: 'succeeded' } });
  t.match(parseLine('[1,2]'), { event: { type: 'output' } });
  t.end();
});
