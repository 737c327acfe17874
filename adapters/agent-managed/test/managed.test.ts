import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { AgentJob } from '../../../core/contracts/index.js';
import { checkJobResult, kitJob, recordingIO, runAgentExecutorContract } from '../../../test/contracts/agent-executor.js';
import mod, { ManagedAgentExecutor } from '../index.js';

const FIX = `sed -i 's/sum + i.price,/sum + i.price * i.qty,/' cart.js`;
const create = (opts: Record<string, unknown> = {}) => new ManagedAgentExecutor(ManagedAgentExecutor.validateOptions({ command: FIX, ...opts }));

t.test('agent-managed passes the AgentExecutor contract kit', (t) =>
  runAgentExecutorContract(t, {
    name: 'agent-managed',
    mode: 'managed',
    completes: true,
    create: () => create(),
    module: mod,
    validateOptions: (o) => ManagedAgentExecutor.validateOptions(o),
    options: { valid: { command: 'true' }, invalid: [{ options: { command: 'true', timeoutMs: 5 }, key: 'timeoutMs' }] },
  }));

/** A bare repository with a cart whose total ignores quantities, and a test that says so. */
function bareRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'pw-managed-'));
  const work = join(dir, 'work');
  const bare = join(dir, 'repo.git');
  const env = { ...process.env, GIT_AUTHOR_NAME: 'T', GIT_AUTHOR_EMAIL: 't@t', GIT_COMMITTER_NAME: 'T', GIT_COMMITTER_EMAIL: 't@t' };
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', work]);
  writeFileSync(join(work, 'cart.js'), 'exports.total = (items) => items.reduce((sum, i) => sum + i.price, 0);\n');
  writeFileSync(join(work, 'test.js'), "const assert = require('node:assert');\nassert.strictEqual(require('./cart.js').total([{ price: 2, qty: 3 }]), 6);\nconsole.log('ok');\n");
  execFileSync('git', ['add', '-A'], { cwd: work, env });
  execFileSync('git', ['commit', '--quiet', '-m', 'init'], { cwd: work, env });
  execFileSync('git', ['push', '--quiet', bare, 'main'], { cwd: work, env });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return bare;
}

const fixJob = (extra: Partial<AgentJob> = {}): AgentJob => ({
  ...kitJob('fix'),
  repository: { id: 'rep_1', full_name: 'acme/shop', default_branch: 'main' },
  branch: 'patchwell/tkt_1-1',
  test_command: 'node test.js',
  ...extra,
});

t.test('a fix: checkout, agent, verification, push of the service-prefixed branch', async (t) => {
  const bare = bareRepo();
  const io = Object.assign(recordingIO(), { tools: { searchCode: async () => [], gitAccess: async () => ({ cloneUrl: bare, token: 'tok', expiresAt: new Date(Date.now() + 60_000) }) } });
  const job = fixJob();
  process.env.PW_SERVICE_SECRET = 'must-not-leak';
  t.teardown(() => void delete process.env.PW_SERVICE_SECRET);
  await create({ command: `test -z "$PW_SERVICE_SECRET" || exit 9; echo "agent for $PATCHWELL_TICKET_ID"; ${FIX}` }).start(job, io);
  const r = io.results[0]!;
  t.same(checkJobResult(r, job), [], 'well-formed');
  t.match(r, { status: 'succeeded', fix: { branch: 'patchwell/tkt_1-1', tests_ran: true, tests_passed: true, verify_passed: true, reason: null } });
  const pushed = execFileSync('git', ['--git-dir', bare, 'rev-parse', 'refs/heads/patchwell/tkt_1-1']).toString().trim();
  t.equal(pushed, r.fix!.head_sha, 'the branch is on the host at head_sha');
  t.ok(io.events.some((e) => e.type === 'agent_output' && /agent for tkt_kit/.test(e.message)), 'agent output streamed; the job\'s variables only');
  t.ok(io.events.some((e) => e.type === 'test_output' && e.message === 'ok'), 'test output streamed');
});

t.test('a fix whose tests fail is pushed but not verified; an agent that changes nothing or runs too long fails', async (t) => {
  const bare = bareRepo();
  const io = () => Object.assign(recordingIO(), { tools: { searchCode: async () => [], gitAccess: async () => ({ cloneUrl: bare, token: 't', expiresAt: new Date() }) } });
  const a = io();
  await create({ command: 'echo "// touched" >> cart.js' }).start(fixJob(), a);
  t.match(a.results[0], { status: 'succeeded', fix: { tests_ran: true, tests_passed: false, verify_passed: false, reason: 'tests_failed' } });
  const b = io();
  await create({ command: 'true' }).start(fixJob(), b);
  t.match(b.results[0], { status: 'failed', error: { code: 'no_changes' } });
  const c = io();
  const started = Date.now();
  await create({ command: 'sleep 30', timeoutMs: 1000 }).start(fixJob(), c);
  t.match(c.results[0], { status: 'failed', error: { code: 'timed_out' } });
  t.ok(Date.now() - started < 15_000, 'killed at the limit');
  const d = io();
  await create().start(fixJob({ test_command: null }), d);
  t.match(d.results[0], { status: 'succeeded', fix: { tests_ran: false, verify_passed: false, reason: 'tests_not_run_without_reason' } });
});
