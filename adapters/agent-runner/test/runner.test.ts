import t from 'tap';
import { kitJob, recordingIO, runAgentExecutorContract } from '../../../test/contracts/agent-executor.js';
import mod, { RunnerAgentExecutor } from '../index.js';

const create = () => new RunnerAgentExecutor(RunnerAgentExecutor.validateOptions({}));

t.test('agent-runner passes the AgentExecutor contract kit (jobs are handed over, not completed)', (t) =>
  runAgentExecutorContract(t, {
    name: 'agent-runner',
    mode: 'runner',
    completes: false,
    create,
    module: mod,
    validateOptions: (o) => RunnerAgentExecutor.validateOptions(o),
    options: { valid: {}, invalid: [{ options: { maxConcurrentJobs: 0 }, key: 'maxConcurrentJobs' }] },
  }),
);

t.test('a fix job handed to the runner executor records that it waits and completes nothing', async (t) => {
  const executor = create();
  t.equal(executor.runsIn, 'remote', 'the fixes worker never claims its jobs');
  const io = recordingIO();
  await executor.start(kitJob('fix'), io);
  t.equal(io.results.length, 0);
  t.match(io.events, [{ type: 'waiting_runner', level: 'info' }]);
});
