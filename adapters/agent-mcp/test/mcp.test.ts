import t from 'tap';
import { kitJob, recordingIO, runAgentExecutorContract } from '../../../test/contracts/agent-executor.js';
import mod, { McpAgentExecutor } from '../index.js';

const create = () => new McpAgentExecutor(McpAgentExecutor.validateOptions({}));

t.test('agent-mcp passes the AgentExecutor contract kit (jobs are handed over, not completed)', (t) =>
  runAgentExecutorContract(t, {
    name: 'agent-mcp',
    mode: 'mcp',
    completes: false,
    create,
    module: mod,
    validateOptions: (o) => McpAgentExecutor.validateOptions(o),
    options: { valid: {}, invalid: [{ options: { maxConcurrentJobs: 0 }, key: 'maxConcurrentJobs' }] },
  }));

t.test('a job handed to the mcp executor waits for the IDE agent and is parked by the handover', async (t) => {
  const io = recordingIO();
  const executor = create();
  const parked: string[] = [];
  executor.attachHandover(async (id) => { parked.push(id); return true; });
  const job = kitJob('fix');
  await executor.start(job, io);
  t.equal(io.results.length, 0, 'completes nothing');
  t.match(io.events, [{ type: 'waiting_mcp', level: 'info' }]);
  t.same(parked, [job.id]);
  const plain = recordingIO();
  await create().start(kitJob('diagnose'), plain);
  t.equal(plain.results.length, 0, 'without a handover it only waits');
});
