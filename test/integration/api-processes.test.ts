// server.apiProcesses: the api role as several processes on one port (node:cluster), with the
// other roles in the primary. Needs Postgres: the embedded database belongs to one process.
import t from 'tap';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropTestSchema, testConfig } from '../helpers/db.js';
import { waitFor } from '../helpers/wait.js';

t.test('more than one api process refuses the embedded database', (t) => {
  const res = spawnSync(process.execPath, ['--import', 'tsx', 'bin/patchwell.ts', '--role', 'api'], {
    env: { ...process.env, DATABASE_URL: '', AMQP_URL: '', API_PROCESSES: '2', PORT: '0', DATA_DIR: ':memory:' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(res.status, 78, 'EX_CONFIG');
  t.match(res.stderr, /server\.apiProcesses .* needs Postgres/);
  const bad = spawnSync(process.execPath, ['--import', 'tsx', 'bin/patchwell.ts', '--role', 'api'], {
    env: { ...process.env, API_PROCESSES: 'many', DATA_DIR: ':memory:' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  t.equal(bad.status, 78);
  t.match(bad.stderr, /config key server\.apiProcesses \(from API_PROCESSES\) must be an integer/);
  t.end();
});

const childrenOf = (pid: number): number[] => {
  const out = spawnSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' }).stdout;
  return out
    .split('\n')
    .map((s) => Number(s.trim()))
    .filter((n) => n > 0);
};

t.test(
  'two api processes serve one port, a dead one is replaced, SIGTERM stops all',
  { skip: process.env.DATABASE_URL ? false : 'needs DATABASE_URL (several processes share the database)' },
  async (t) => {
    const config = testConfig();
    t.teardown(() => dropTestSchema(config));
    const dir = mkdtempSync(join(tmpdir(), 'pw-api-processes-'));
    const configFile = join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        database: { schema: config.database.schema },
        bus: { exchange: config.bus.exchange, deleteQueuesOnStop: true },
      }),
    );
    const port = 21000 + Math.floor(Math.random() * 20000);
    const logFile = join(dir, 'out.log');
    let log = '';
    // `node --import tsx` directly, so the primary is the child's own pid.
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bin/patchwell.ts', '--role', 'all'], {
      env: {
        ...process.env,
        CONFIG_FILE: configFile,
        API_PROCESSES: '2',
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dir,
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (c: Buffer) => (log += c.toString('utf8')));
    child.stderr!.on('data', (c: Buffer) => (log += c.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    t.teardown(() => {
      writeFileSync(logFile, log);
      if (child.exitCode === null) child.kill('SIGKILL');
    });

    await waitFor(
      () => (log.match(/"msg":"patchwell started on [^"]*\(api process \d+\)"/g) ?? []).length === 2,
      'two api processes listening',
      90_000,
    );
    t.match(log, /patchwell started: 2 api processes on port/);
    const workers = childrenOf(child.pid!);
    t.equal(workers.length, 2, 'the primary has two api processes');
    for (let i = 0; i < 10; i++) {
      const res = await fetch(`http://127.0.0.1:${port}/v1/health`);
      t.equal(res.status, 200, `request ${i} answered`);
      await res.arrayBuffer();
    }

    process.kill(workers[0], 'SIGKILL');
    await waitFor(() => (log.match(/\(api process \d+\)"/g) ?? []).length === 3, 'a replacement api process', 90_000);
    t.match(log, /an api process ended; starting another/);
    const after = childrenOf(child.pid!);
    t.equal(after.length, 2, 'two api processes again');
    t.notOk(after.includes(workers[0]), 'the dead one is gone');
    t.equal((await fetch(`http://127.0.0.1:${port}/v1/health`)).status, 200);

    child.kill('SIGTERM');
    t.equal(await exited, 0, 'a clean stop');
    for (const pid of after) {
      let alive = true;
      try {
        process.kill(pid, 0);
      } catch {
        alive = false;
      }
      t.notOk(alive, `api process ${pid} stopped with the primary`);
    }
  },
);
