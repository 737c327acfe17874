import { execFileSync } from 'node:child_process';
import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { JobEventInput, JobIO } from '../../../core/contracts/index.js';
import { checkJobResult, runAgentExecutorContract } from '../../../test/contracts/agent-executor.js';
import mod, { ManagedAgentExecutor } from '../index.js';
import { CostMeter } from '../cost.js';
import { testSandboxOptions } from '../../../test/helpers/sandbox.js';
import { bareRepo, FIX, fixJob, outputOf, repoIO } from './helpers.js';

const create = (opts: Record<string, unknown> = {}) =>
  new ManagedAgentExecutor(ManagedAgentExecutor.validateOptions({ command: FIX, ...testSandboxOptions, ...opts }));

t.test('agent-managed passes the AgentExecutor contract kit', (t) =>
  runAgentExecutorContract(t, {
    name: 'agent-managed',
    mode: 'managed',
    completes: true,
    create: () => create(),
    module: mod,
    validateOptions: (o) => ManagedAgentExecutor.validateOptions(o),
    options: {
      valid: { command: 'true', sandbox: { mode: 'none' } },
      invalid: [
        { options: { command: 'true', timeoutMs: 5 }, key: 'timeoutMs' },
        { options: { command: 'true', sandbox: { mode: 'jail' } }, key: 'sandbox.mode' },
        { options: { command: 'true', sandbox: { mode: 'user', user: 'not a name!' } }, key: 'sandbox.user' },
      ],
    },
  }),
);

t.test('a fix: checkout, agent, verification, push of the service-prefixed branch', async (t) => {
  const bare = bareRepo(t);
  const io = repoIO(bare);
  const job = fixJob();
  process.env.PW_SERVICE_SECRET = 'must-not-leak';
  t.teardown(() => void delete process.env.PW_SERVICE_SECRET);
  await create({
    command: `test -z "$PW_SERVICE_SECRET" || exit 9; echo "agent for $PATCHWELL_TICKET_ID within $PATCHWELL_MAX_COST_USD USD"; ${FIX}`,
  }).start(job, io);
  const r = io.results[0];
  t.same(checkJobResult(r, job), [], 'well-formed');
  t.match(r, {
    status: 'succeeded',
    cost_usd: 0,
    fix: { branch: 'patchwell/tkt_1-1', tests_ran: true, tests_passed: true, verify_passed: true, reason: null },
  });
  const pushed = execFileSync('git', ['--git-dir', bare, 'rev-parse', 'refs/heads/patchwell/tkt_1-1'])
    .toString()
    .trim();
  t.equal(pushed, r.fix!.head_sha, 'the branch is on the host at head_sha');
  t.ok(
    outputOf(io).includes(`agent for ${job.ticket.id} within 1 USD`),
    "agent output streamed; the job's variables only, with its cost limit",
  );
  t.ok(
    io.events.some((e) => e.type === 'test_output' && e.message === 'ok'),
    'test output streamed',
  );
  t.ok(
    io.events.some((e) => e.type === 'sandbox'),
    'the job says which sandbox it ran in',
  );
});

t.test(
  'a fix whose tests fail is pushed but not verified; an agent that changes nothing or runs too long fails',
  async (t) => {
    const bare = bareRepo(t);
    const a = repoIO(bare);
    await create({ command: 'echo "// touched" >> cart.js' }).start(fixJob(), a);
    t.match(a.results[0], {
      status: 'succeeded',
      fix: { tests_ran: true, tests_passed: false, verify_passed: false, reason: 'tests_failed' },
    });
    const b = repoIO(bare);
    await create({ command: 'true' }).start(fixJob(), b);
    t.match(b.results[0], { status: 'failed', error: { code: 'no_changes' } });
    const c = repoIO(bare);
    await create({ command: 'sleep 30', timeoutMs: 1000 }).start(fixJob(), c);
    t.match(c.results[0], { status: 'failed', error: { code: 'timed_out' } });
    const d = repoIO(bare);
    await create().start(fixJob({ test_command: null }), d);
    t.match(d.results[0], {
      status: 'succeeded',
      fix: { tests_ran: false, verify_passed: false, reason: 'tests_not_run_without_reason' },
    });
  },
);

// The cost protocol: the agent (or its wrapper) reports its running total in USD.
const fileCost = (usd: number | string) => `echo '{"cost_usd": ${usd}}' >> "$PATCHWELL_COST_FILE"`;

t.test(
  'the agent reports its spend through PATCHWELL_COST_FILE or ::patchwell-cost lines; the job carries it',
  async (t) => {
    const bare = bareRepo(t);
    const viaFile = repoIO(bare);
    const job = fixJob();
    await create({ command: `${fileCost(0.05)}; ${fileCost(0.2)}; ${FIX}` }).start(job, viaFile);
    t.match(viaFile.results[0], { status: 'succeeded', cost_usd: 0.2 }, 'the last total written to the file');
    t.same(checkJobResult(viaFile.results[0], job), []);
    t.ok(
      viaFile.events.some((e) => e.type === 'cost' && e.data?.cost_usd === 0.2),
      'a cost line in the log',
    );
    const tree = execFileSync('git', [
      '--git-dir',
      bare,
      'ls-tree',
      '-r',
      '--name-only',
      'refs/heads/patchwell/tkt_1-1',
    ]).toString();
    t.notMatch(tree, /cost/, 'the cost file is not committed');

    const viaStdout = repoIO(bare);
    await create({ command: `echo "::patchwell-cost 0.1"; echo "::patchwell-cost 0.35"; ${FIX}` }).start(
      fixJob(),
      viaStdout,
    );
    t.match(viaStdout.results[0], { status: 'succeeded', cost_usd: 0.35 }, 'the last total printed');

    const both = repoIO(bare);
    await create({
      command: `echo "::patchwell-cost 0.3"; ${fileCost(0.25)}; ${fileCost('"oops"')}; echo 'not json' >> "$PATCHWELL_COST_FILE"; ${FIX}`,
    }).start(fixJob(), both);
    t.match(both.results[0], { status: 'succeeded', cost_usd: 0.3 }, 'the highest total of both channels');
    t.ok(
      both.events.some(
        (e) => e.type === 'cost' && e.level === 'warn' && /2 cost report\(s\) not understood/.test(e.message),
      ),
      'bad reports are named, not counted',
    );
  },
);

t.test(
  'an agent whose spend passes max_cost_usd is killed and the job fails cost_limit_reached with what it spent',
  async (t) => {
    const bare = bareRepo(t);
    const job = fixJob({ limits: { max_minutes: 5, max_cost_usd: 1 } });
    const viaFile = repoIO(bare);
    // Without the limit the agent would sleep into the 20 s timeout (timed_out) and then fix the cart.
    await create({ command: `${fileCost(0.5)}; ${fileCost(1.5)}; sleep 20; ${FIX}`, timeoutMs: 20_000 }).start(
      job,
      viaFile,
    );
    const r = viaFile.results[0];
    t.match(r, { status: 'failed', cost_usd: 1.5, error: { code: 'cost_limit_reached' } });
    t.same(checkJobResult(r, job), [], 'the kit accepts a spend above the limit only for cost_limit_reached');
    t.ok(
      viaFile.events.some((e) => e.type === 'cost_limit' && e.level === 'error'),
      'the overspend is in the log',
    );
    t.throws(
      () =>
        execFileSync('git', ['--git-dir', bare, 'rev-parse', '--verify', '--quiet', 'refs/heads/patchwell/tkt_1-1'], {
          stdio: 'pipe',
        }),
      'nothing was pushed',
    );

    const viaStdout = repoIO(bare);
    await create({ command: 'echo "::patchwell-cost 2.5"; sleep 20', timeoutMs: 20_000 }).start(job, viaStdout);
    t.match(viaStdout.results[0], { status: 'failed', cost_usd: 2.5, error: { code: 'cost_limit_reached' } });

    const atTheEnd = repoIO(bare);
    await create({ command: `${FIX}; echo "::patchwell-cost 1.01"` }).start(job, atTheEnd);
    t.match(
      atTheEnd.results[0],
      { status: 'failed', cost_usd: 1.01, error: { code: 'cost_limit_reached' } },
      'a total above the limit reported as the agent ends fails too',
    );

    const atTheLimit = repoIO(bare);
    await create({ command: `${fileCost(1)}; ${FIX}` }).start(job, atTheLimit);
    t.match(atTheLimit.results[0], { status: 'succeeded', cost_usd: 1 }, 'exactly the limit is within it');
  },
);

t.test("the reported spend is the job's cost in every outcome: failed, timed out, cancelled", async (t) => {
  const bare = bareRepo(t);
  const failed = repoIO(bare);
  await create({ command: `${fileCost(0.4)}; exit 3` }).start(fixJob(), failed);
  t.match(failed.results[0], { status: 'failed', cost_usd: 0.4, error: { code: 'agent_failed' } });

  const late = repoIO(bare);
  await create({ command: `${fileCost(0.1)}; sleep 30`, timeoutMs: 1000 }).start(fixJob(), late);
  t.match(late.results[0], { status: 'failed', cost_usd: 0.1, error: { code: 'timed_out' } });

  // Someone cancels the job once the agent says it is working (after it reported a spend).
  let cancelled = false;
  const base = repoIO(bare);
  const io: JobIO & typeof base = Object.assign(base, {
    isCancelled: () => cancelled,
    emit: (e: JobEventInput) => {
      base.events.push(e);
      if (e.type === 'agent_output' && e.message === 'working') cancelled = true;
      return Promise.resolve();
    },
  });
  await create({ command: `${fileCost(0.25)}; echo working; sleep 30`, timeoutMs: 20_000 }).start(fixJob(), io);
  t.match(io.results[0], { status: 'cancelled', cost_usd: 0.25 });
});

t.test('CostMeter reads appended JSON lines, a file started over, and the last line without its newline', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'pw-cost-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const meter = new CostMeter(join(dir, 'cost.jsonl'));
  await meter.poll();
  t.equal(meter.total, 0, 'no file yet');
  await writeFile(meter.file, '{"cost_usd": 0.1}\n{"cost_usd": 0.3');
  await meter.poll();
  t.equal(meter.total, 0.1, 'a line without its newline waits');
  await appendFile(meter.file, '}\n');
  await meter.poll();
  t.equal(meter.total, 0.3);
  await writeFile(meter.file, '{"cost_usd": -1}\n{"cost_usd": 0.9}');
  await meter.finish();
  t.equal(meter.total, 0.9, 'a file started over is read again; the last line counts at the end');
  t.equal(meter.ignored, 1, 'a negative total is ignored');
  t.ok(meter.stdoutLine('::patchwell-cost 1.25'));
  t.notOk(meter.stdoutLine('::patchwell-cost lots'));
  t.equal(meter.total, 1.25);
});
