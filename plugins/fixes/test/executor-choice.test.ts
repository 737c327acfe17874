import t from 'tap';
import type { AgentExecutor } from '../../../core/contracts/index.js';
import type { FixesDeps, LoopWorkspace } from '../services/deps.js';
import type { JobQueue } from '../services/job-queue.js';
import { FixLoop } from '../services/loop.js';

const executor = (identifier: string, mode: AgentExecutor['mode'], diagnose: boolean, fix: boolean): AgentExecutor => ({
  identifier,
  mode,
  runsIn: 'worker',
  capabilities: { diagnose, fix },
  start: () => Promise.resolve(),
  cancel: () => Promise.resolve(),
});
const builtin = executor('agent-builtin', 'builtin', true, false);
const managed = executor('agent-managed', 'managed', false, true);
const model = executor('agent-model', 'managed', true, true);
const runner = executor('agent-runner', 'runner', true, true);

const loopWith = (executors: AgentExecutor[]) =>
  new FixLoop({ executors } as unknown as FixesDeps, {} as unknown as JobQueue);
const ws = (auth_method: string | null, execution_mode: LoopWorkspace['execution_mode'] = 'managed') =>
  ({ execution_mode, auth_method }) as LoopWorkspace;

void t.test('with agent-model on, managed workspaces with an API key use it for diagnoses and fixes', (t) => {
  const loop = loopWith([builtin, managed, model]);
  t.equal(loop.diagnoser(ws('api-key'))?.identifier, 'agent-model');
  t.equal(loop.fixer(ws('api-key'))?.identifier, 'agent-model');
  t.end();
});

void t.test('other auth methods keep the CLI agent for fixes and the builtin diagnosis', (t) => {
  const loop = loopWith([builtin, managed, model]);
  for (const auth of ['account_login', 'cloud_a', 'subscription', null]) {
    t.equal(loop.diagnoser(ws(auth))?.identifier, 'agent-builtin', `${auth}: diagnosis`);
    t.equal(loop.fixer(ws(auth))?.identifier, 'agent-managed', `${auth}: fix`);
  }
  t.end();
});

void t.test('runner and mcp workspaces keep their executors whatever their auth method', (t) => {
  const loop = loopWith([builtin, managed, model, runner]);
  t.equal(loop.diagnoser(ws('api-key', 'runner'))?.identifier, 'agent-runner');
  t.equal(loop.fixer(ws('api-key', 'runner'))?.identifier, 'agent-runner');
  t.equal(loop.fixer(ws('api-key', 'mcp')), undefined, 'no mcp executor configured: no fixer');
  t.end();
});

void t.test('without agent-model, an API-key workspace keeps agent-managed as before', (t) => {
  const loop = loopWith([builtin, managed]);
  t.equal(loop.diagnoser(ws('api-key'))?.identifier, 'agent-builtin');
  t.equal(loop.fixer(ws('api-key'))?.identifier, 'agent-managed');
  t.end();
});
