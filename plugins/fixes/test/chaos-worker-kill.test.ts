/**
 * Chaos (issue 7): the worker process dies (SIGKILL) in the middle of a fix job. A second worker
 * process takes the job over once its lease has expired, and the loop ends exactly once: one pull
 * request, one release, one notice per subscriber. Needs a database that several processes share
 * (DATABASE_URL); with AMQP_URL the processes also share RabbitMQ.
 */
import t from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Knex } from 'knex';
import { createApp, type App } from '../../../core/kernel/app.js';
import { builtinAdapters } from '../../../adapters/index.js';
import { builtinPlugins } from '../../../plugins/index.js';
import { projectRoot } from '../../../core/kernel/config.js';
import { dropTestSchema, testConfig } from '../../../test/helpers/db.js';
import { BUG_REPORT, REPO_FILES, chaosDir, blockingAgent, killAgents, release } from './fixtures/chaos.js';
import {
  fixLoopAdapters,
  call,
  receiveEmail,
  waitFor,
  type Json,
  shopWithApprovedFixes,
  ticketInState,
  releaseNotices,
  NOTICES_TO_REPORTER_AND_FOLLOWER,
} from './helpers.js';

const skip = process.env.DATABASE_URL
  ? false
  : 'DATABASE_URL is not set: the worker-kill test needs a database shared by several processes (PGlite is one process only)';

/** A worker process: `node --import tsx bin/patchwell.ts --role worker`, its config in CONFIG_FILE, its log in a file. */
interface Worker {
  name: string;
  child: ChildProcess;
  log: string;
  exited: Promise<number | null>;
}

function spawnWorker(dir: string, name: string, configFile: string): Worker {
  const log = join(dir, `${name}.log`);
  const fd = openSync(log, 'a');
  const env: NodeJS.ProcessEnv = { ...process.env, CONFIG_FILE: configFile };
  // The config file is the whole configuration; these would only repeat it.
  delete env.DATABASE_URL;
  delete env.AMQP_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/patchwell.ts', '--role', 'worker'], {
    cwd: projectRoot,
    env,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))),
  );
  return { name, child, log, exited };
}

async function ready(w: Worker): Promise<void> {
  let gone = false;
  void w.exited.then(() => (gone = true));
  await waitFor(
    async () => {
      if (gone) throw new Error(`worker ${w.name} exited during start:\n${tail(w.log)}`);
      return readFileSync(w.log, 'utf8').includes('"patchwell started"');
    },
    `worker ${w.name} to start`,
    30_000,
  );
}

function tail(file: string, lines = 30): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

async function stopWorker(w: Worker): Promise<void> {
  if (w.child.exitCode !== null || w.child.signalCode !== null) return;
  w.child.kill('SIGTERM');
  const timer = setTimeout(() => w.child.kill('SIGKILL'), 15_000);
  await w.exited;
  clearTimeout(timer);
}

const count = async (q: Knex.QueryBuilder): Promise<number> => Number(((await q.count('* as n').first()) as Json).n);

t.test(
  'chaos: a worker killed in the middle of a fix job; the next worker resumes it and the loop ends once',
  { skip },
  async (t) => {
    const dir = chaosDir();
    const fixes = { pollMs: 200, leaseMs: 2500, backoffMs: [50, 100] };
    const config = testConfig({
      adapters: fixLoopAdapters({ command: blockingAgent(dir), workRoot: join(dir, 'checkouts') }),
      plugins: { fixes: { enabled: true, options: fixes } },
    });
    // The workers log at info (their log files are printed when something fails).
    const configFile = join(dir, 'worker-config.json');
    writeFileSync(configFile, JSON.stringify({ ...config, log: { level: 'info' } }, null, 2));

    const workers: Worker[] = [];
    let ticketId: string | null = null;
    // This process serves the API only: no consumers, no outbox relay, no job worker.
    const app: App = await createApp(config, { roles: ['api'], plugins: builtinPlugins, adapters: builtinAdapters });
    const db = app.db as Knex;
    t.teardown(async () => {
      for (const w of workers) await stopWorker(w);
      killAgents(dir);
      await app.stop();
      await dropTestSchema(config);
      rmSync(dir, { recursive: true, force: true });
      rmSync(config.dataDir, { recursive: true, force: true });
    });
    // What a failure message shows: the workers' logs and the ticket's jobs with their events.
    const logs = async () => {
      const jobs = (await db
        .select('*')
        .from('fix_jobs')
        .where({ ticket_id: ticketId ?? '' })
        .catch(() => [])) as Json[];
      const events = (await db('fix_job_events')
        .whereIn(
          'job_id',
          jobs.map((j) => j.id),
        )
        .orderBy('seq')
        .catch(() => [])) as Json[];
      return [
        ...workers.map((w) => `--- ${w.name}\n${tail(w.log)}`),
        '--- jobs',
        ...jobs.map((j) =>
          JSON.stringify({
            id: j.id,
            kind: j.kind,
            status: j.status,
            attempts: j.attempts,
            lease_owner: j.lease_owner,
            lease_expires_at: j.lease_expires_at,
            run_after: j.run_after,
            error_code: j.error_code,
          }),
        ),
        '--- job events',
        ...events.map((e) => `${e.job_id} ${e.type}: ${e.message}`),
      ].join('\n');
    };

    await app.start({ listen: false });

    const first = spawnWorker(dir, 'worker-1', configFile);
    workers.push(first);
    await ready(first);

    const { owner, ws, repo, host, ref, verified } = await shopWithApprovedFixes(
      app,
      { merge_method: 'squash', release_strategy: 'semver', github_release_enabled: true },
      REPO_FILES,
    );
    const id = await receiveEmail(app, ws.inbound_address, BUG_REPORT);
    ticketId = id;
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${id}/subscribers`, { email: 'grace.hopper@example.com' })).status,
      201,
      'a second person follows the ticket',
    );

    // The fix job runs in worker 1 and its agent is blocked.
    const running = await waitFor(
      async () => {
        const job = (await db('fix_jobs').where({ ticket_id: id, kind: 'fix' }).first()) as Json | undefined;
        if (!job) return null;
        const started = await db('fix_job_events')
          .where({ job_id: job.id, type: 'agent_output' })
          .where('message', 'like', 'agent attempt started%')
          .first();
        return started ? job : null;
      },
      'the fix job to be mid-run in worker 1',
      40_000,
    ).catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await logs()}`);
    });
    t.match(running, { status: 'running', attempts: 1, executor: 'agent-managed' });
    t.match(running.lease_owner, new RegExp(`:${first.child.pid}:`), 'worker 1 holds the lease');

    first.child.kill('SIGKILL');
    t.equal(await first.exited, -1, 'worker 1 is gone (SIGKILL)');
    t.ok(killAgents(dir) >= 1, "worker 1's agent is gone too");
    // While no worker runs, the job stays leased by the dead worker until its lease expires.
    t.match(await db('fix_jobs').where({ id: running.id }).first(), {
      status: 'running',
      attempts: 1,
      lease_owner: running.lease_owner,
    });

    await release(dir);
    const second = spawnWorker(dir, 'worker-2', configFile);
    workers.push(second);
    await ready(second);

    const attempt = await verified(id, 'the fix and its pull request from worker 2').catch(async (err: Error) => {
      throw new Error(`${err.message}\n${await logs()}`);
    });
    t.match(attempt, { number: 1, status: 'verified', tests_passed: true, verify_passed: true, pr_state: 'open' });

    const job = (await db('fix_jobs').where({ id: running.id }).first()) as Json;
    t.match(
      job,
      { status: 'succeeded', attempts: 2, lease_owner: null },
      'the job was retried as attempt 2 and finished',
    );
    t.equal(await count(db('fix_jobs').where({ ticket_id: id, kind: 'fix' })), 1, 'one fix job');
    t.equal(await count(db('fix_jobs').where({ ticket_id: id, kind: 'diagnose' })), 1, 'one diagnosis job');
    t.equal(await count(db('fix_attempts').where({ ticket_id: id })), 1, 'one fix attempt');

    const events = await call(app, owner, 'GET', `/v1/tickets/${id}/jobs/${job.id}/events?limit=200`);
    t.equal(events.status, 200);
    const items = events.body.items as Json[];
    const started = items.filter((e) => e.type === 'agent_output' && /^agent attempt started/.test(e.message));
    t.equal(started.length, 2, "both attempts' agent output is in the log (the first attempt's too)");
    t.ok(
      items.some((e) => e.type === 'lease_expired' && /attempt 2 of 3/.test(e.message)),
      'the log says the lease expired',
    );
    t.same(
      items
        .filter((e) => e.type === 'claimed')
        .map((e) => e.data.attempt)
        .sort(),
      [1, 2],
      'claimed twice',
    );
    t.equal(items.filter((e) => e.type === 'result').length, 1, 'one result');

    const prs = (await db('codehost_local_items').where({ repo: repo.full_name, kind: 'pull_request' })) as Json[];
    t.equal(prs.length, 1, 'exactly one pull request on the code host');
    t.match(prs[0], {
      number: attempt.pr_number,
      head_branch: `patchwell/${id}-1`,
      head_sha: attempt.head_sha,
      state: 'open',
    });

    const ok = await call(app, owner, 'POST', `/v1/tickets/${id}/approve`, {
      fix_attempt_id: attempt.id,
      approved_sha: attempt.head_sha,
      public_summary: 'The cart total now counts quantities.',
    });
    t.equal(ok.status, 200, ok.body.message);
    const done = await ticketInState(app, owner, id, 'customer_notified', 'the release and the notice').catch(
      async (err: Error) => {
        throw new Error(`${err.message}\n${await logs()}`);
      },
    );
    t.match(done, { public_state: 'resolved', resolved_version: '0.1.0' });

    const releases = (await db('fix_releases').where({ ticket_id: id })) as Json[];
    t.equal(releases.length, 1, 'one release');
    t.match(releases[0], { status: 'released', version: '0.1.0', approved_sha: attempt.head_sha });
    t.match(await host.getPullRequest(ref, attempt.pr_number), { state: 'merged' });
    t.equal((await host.listReleases(repo.full_name)).length, 1, 'one code-host release');
    // The customer's notice speaks of their report; a follower's quotes nobody (docs/fixes.md, "Notices").
    const notices = await releaseNotices(db);
    t.same(
      notices.map((m) => [m.template, m.to_address]),
      NOTICES_TO_REPORTER_AND_FOLLOWER,
      'one release notice per subscriber',
    );
    await waitFor(async () => (await count(db('outbox').whereNull('published_at'))) === 0, 'the outbox to drain').catch(
      async (err: Error) => {
        throw new Error(
          `${err.message}: ${JSON.stringify(await db('outbox').whereNull('published_at').select('type', 'attempts', 'last_error'))}`,
        );
      },
    );
    t.pass('every event was published');
  },
);
