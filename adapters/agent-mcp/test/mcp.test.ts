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
  }),
);

t.test('agent-mcp runs remote: the worker never claims its jobs; start only records that the job waits', async (t) => {
  const executor = create();
  t.equal(executor.runsIn, 'remote');
  const io = recordingIO();
  await executor.start(kitJob('fix'), io);
  t.equal(io.results.length, 0, 'completes nothing');
  t.match(io.events, [{ type: 'waiting_mcp', level: 'info' }]);
});
