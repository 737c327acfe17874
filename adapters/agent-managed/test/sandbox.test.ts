import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { checkJobResult } from '../../../test/contracts/agent-executor.js';
import { ManagedAgentExecutor } from '../index.js';
import { lookupUser, probeNamespaces } from '../sandbox.js';
import { checkoutReachableByOthers } from '../../../test/helpers/sandbox.js';
import { bareRepo, FIX, fixJob, outputOf, repoIO } from './helpers.js';

const create = (opts: Record<string, unknown> = {}) =>
  new ManagedAgentExecutor(ManagedAgentExecutor.validateOptions({ command: FIX, ...opts }));
const root = process.getuid?.() === 0;
const nobody = lookupUser('nobody');
const namespaces = probeNamespaces(root ? nobody : null, false) !== null;
const reachable = checkoutReachableByOthers();
const unreachable =
  'a directory above this checkout is closed to other accounts, and tap loads its hooks from node_modules in every child (test/helpers/sandbox.ts)';
const noNamespaces = !reachable
  ? unreachable
  : namespaces
    ? false
    : 'unshare cannot create user, PID and mount namespaces on this machine';

/** What the agent learns about where it runs; it then fixes the cart so the job succeeds. */
const PROBE = [
  'echo "uid $(id -u)"',
  'echo "groups $(id -G)"',
  `[ -d /proc/${process.pid} ] && echo "service visible" || echo "service hidden"`,
  'test -z "$PW_SERVICE_SECRET" && echo "no secret" || echo "secret $PW_SERVICE_SECRET"',
  FIX,
].join('; ');

/** A command that tries a TCP connection to the test's server and prints the outcome. */
const connect = (port: number) =>
  `node -e "const s = require('net').connect(${port}, '127.0.0.1'); s.on('connect', () => { console.log('net connected'); s.end(); }); s.on('error', (e) => console.log('net error ' + e.code));"`;

async function tcpServer(t: Test): Promise<{ port: number; connections: () => number }> {
  let n = 0;
  const server: Server = createServer((s) => {
    n++;
    s.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  return { port: typeof address === 'object' && address ? address.port : 0, connections: () => n };
}

process.env.PW_SERVICE_SECRET = 'service-secret-must-not-leak';
t.teardown(() => void delete process.env.PW_SERVICE_SECRET);

t.test(
  'namespace: the agent runs unprivileged in its own PID namespace, sees no service secret and no service process',
  { skip: noNamespaces },
  async (t) => {
    const bare = bareRepo(t);
    const io = repoIO(bare);
    const job = fixJob();
    await create({ command: PROBE, sandbox: { mode: 'namespace' } }).start(job, io);
    t.same(checkJobResult(io.results[0], job), []);
    t.match(
      io.results[0],
      { status: 'succeeded', fix: { tests_passed: true } },
      'it could still change the checkout and run the tests',
    );
    const out = outputOf(io);
    t.ok(out.includes('service hidden'), `the service's process is not visible (${out.join(' | ')})`);
    t.ok(out.includes('no secret'), 'no service secret in the environment');
    if (root) t.ok(out.includes(`uid ${nobody!.uid}`), 'as root, the namespace runs as nobody, never as root');
    t.match(
      io.events.find((e) => e.type === 'sandbox'),
      { level: 'info', data: { kind: 'namespace', network: true } },
      'the job says where it ran',
    );
  },
);

t.test(
  'namespace with network false: a local TCP server cannot be reached; with network it can',
  { skip: noNamespaces },
  async (t) => {
    const bare = bareRepo(t);
    const server = await tcpServer(t);
    const open = repoIO(bare);
    await create({ command: `${connect(server.port)}; ${FIX}`, sandbox: { mode: 'namespace', network: true } }).start(
      fixJob(),
      open,
    );
    t.ok(outputOf(open).includes('net connected'), 'with network the server is reached');
    t.equal(server.connections(), 1);

    const closed = repoIO(bare);
    await create({ command: `${connect(server.port)}; ${FIX}`, sandbox: { mode: 'namespace', network: false } }).start(
      fixJob(),
      closed,
    );
    t.ok(
      outputOf(closed).some((l) => /^net error E[A-Z]+$/.test(l)),
      `without network the connection fails (${outputOf(closed)
        .filter((l) => l.startsWith('net '))
        .join(' | ')})`,
    );
    t.equal(server.connections(), 1, 'the server saw no second connection');
    t.match(
      closed.events.find((e) => e.type === 'sandbox'),
      { data: { kind: 'namespace', network: false } },
    );
    t.match(closed.results[0], { status: 'succeeded' });
  },
);

t.test(
  'none: the commands run as the service (the control for the cases above), still without its secrets',
  async (t) => {
    const bare = bareRepo(t);
    const io = repoIO(bare);
    await create({ command: PROBE, sandbox: { mode: 'none' } }).start(fixJob(), io);
    const out = outputOf(io);
    t.ok(out.includes('service visible'), 'the service process is visible without a PID namespace');
    t.ok(out.includes(`uid ${process.getuid?.()}`), "as the service's uid");
    t.ok(out.includes('no secret'), 'the clean environment holds');
    t.match(
      io.events.find((e) => e.type === 'sandbox'),
      { data: { kind: 'none' } },
    );
  },
);

t.test('auto picks the namespace where unshare works', { skip: noNamespaces }, (t) => {
  t.equal(create().sandbox.kind, 'namespace');
  t.equal(create({ sandbox: { mode: 'auto', network: false } }).sandbox.network, false);
  t.end();
});

t.test('start-up refuses a sandbox it cannot give', (t) => {
  t.throws(() => create({ sandbox: { mode: 'user', user: `pw-missing-${randomBytes(3).toString('hex')}` } }), {
    code: 'invalid_adapter_options',
    message: /sandbox\.user: no local account/,
  });
  t.throws(() => create({ sandbox: { mode: 'user' } }), {
    code: 'invalid_adapter_options',
    message: /sandbox\.user: is required/,
  });
  if (!root)
    t.throws(() => create({ sandbox: { mode: 'user', user: 'nobody' } }), {
      message: /sandbox\.mode: "user" needs the service to run as root/,
    });
  else
    t.equal(
      create({ sandbox: { mode: 'user', user: 'nobody' } }).sandbox.kind,
      'user',
      'as root a user sandbox starts',
    );
  t.end();
});

// A throwaway account (root only): created here and removed at the end.
const canAddUser =
  root &&
  (() => {
    try {
      execFileSync('sh', ['-c', 'command -v useradd && command -v userdel'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

t.test(
  "user: the commands run as the configured account, not root, and cannot read root's files",
  { skip: !reachable ? unreachable : canAddUser ? false : 'needs root and useradd to create a test account' },
  async (t) => {
    const name = `pwsb${randomBytes(4).toString('hex')}`;
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
    t.teardown(() => void execFileSync('userdel', [name]));
    const account = lookupUser(name)!;
    t.ok(account.uid > 0, 'the account exists');
    const secretDir = mkdtempSync(join(tmpdir(), 'pw-root-only-'));
    const secretFile = join(secretDir, 'secret.txt');
    writeFileSync(secretFile, 'root only\n');
    chmodSync(secretDir, 0o755);
    chmodSync(secretFile, 0o600);
    t.teardown(() => rmSync(secretDir, { recursive: true, force: true }));

    const bare = bareRepo(t);
    const io = repoIO(bare);
    const job = fixJob();
    await create({
      command: `${PROBE}; cat ${secretFile} 2>/dev/null && echo "read root file" || echo "root file denied"`,
      sandbox: { mode: 'user', user: name },
    }).start(job, io);
    const out = outputOf(io);
    t.ok(out.includes(`uid ${account.uid}`), `id -u is the account's uid (${out.join(' | ')})`);
    t.notOk(
      out.some((l) => /^groups .*\b0\b/.test(l)),
      'no root group kept',
    );
    t.ok(out.includes('root file denied'), 'a root-only file stays closed');
    t.ok(out.includes('no secret'));
    t.match(
      io.results[0],
      { status: 'succeeded', fix: { tests_passed: true } },
      'the account could write the checkout and run the tests',
    );
    t.same(checkJobResult(io.results[0], job), []);
    t.match(
      io.events.find((e) => e.type === 'sandbox'),
      { data: { kind: 'user', uid: account.uid, user: name } },
    );

    if (namespaces) {
      const both = repoIO(bare);
      await create({ command: PROBE, sandbox: { mode: 'namespace', user: name } }).start(fixJob(), both);
      t.ok(outputOf(both).includes(`uid ${account.uid}`), 'namespace mode runs as the configured account too');
      t.ok(outputOf(both).includes('service hidden'));
    }
  },
);
