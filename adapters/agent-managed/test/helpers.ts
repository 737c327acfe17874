import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import type { AgentJob } from '../../../core/contracts/index.js';
import { kitJob, recordingIO } from '../../../test/contracts/agent-executor.js';

/** The agent's fix of the cart below. */
export const FIX = `sed -i 's/sum + i.price,/sum + i.price * i.qty,/' cart.js`;

/** A bare repository with a cart whose total ignores quantities, and a test that says so. */
export function bareRepo(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'pw-managed-'));
  const work = join(dir, 'work');
  const bare = join(dir, 'repo.git');
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: 'T',
    GIT_AUTHOR_EMAIL: 't@t',
    GIT_COMMITTER_NAME: 'T',
    GIT_COMMITTER_EMAIL: 't@t',
  };
  execFileSync('git', ['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  execFileSync('git', ['init', '--quiet', '--initial-branch=main', work]);
  writeFileSync(join(work, 'cart.js'), 'exports.total = (items) => items.reduce((sum, i) => sum + i.price, 0);\n');
  writeFileSync(
    join(work, 'test.js'),
    "const assert = require('node:assert');\nassert.strictEqual(require('./cart.js').total([{ price: 2, qty: 3 }]), 6);\nconsole.log('ok');\n",
  );
  execFileSync('git', ['add', '-A'], { cwd: work, env });
  execFileSync('git', ['commit', '--quiet', '-m', 'init'], { cwd: work, env });
  execFileSync('git', ['push', '--quiet', bare, 'main'], { cwd: work, env });
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return bare;
}

export const fixJob = (extra: Partial<AgentJob> = {}): AgentJob => ({
  ...kitJob('fix'),
  repository: { id: 'rep_1', full_name: 'acme/shop', default_branch: 'main' },
  branch: 'patchwell/tkt_1-1',
  test_command: 'node test.js',
  ...extra,
});

/** A recording JobIO with git access to `bare`. */
export const repoIO = (bare: string, cancelled = false) =>
  Object.assign(recordingIO(cancelled), {
    tools: {
      searchCode: () => Promise.resolve([]),
      gitAccess: () => Promise.resolve({ cloneUrl: bare, token: 'tok', expiresAt: new Date(Date.now() + 60_000) }),
    },
  });

/** The agent's output lines. */
export const outputOf = (io: ReturnType<typeof recordingIO>): string[] =>
  io.events.filter((e) => e.type === 'agent_output').map((e) => e.message);
