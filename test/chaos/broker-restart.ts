/**
 * Chaos (issue 7), with the real broker: RabbitMQ's application is stopped and started again
 * (`rabbitmqctl stop_app` / `start_app`) while the fix loop handles a burst of inbound emails.
 * Checks that nothing is lost (every ticket diagnosed with its draft, every outbox row published,
 * nothing dead-lettered) and nothing is applied twice (one diagnosis per ticket).
 *
 *   DATABASE_URL=postgres://postgres@127.0.0.1:5432/test AMQP_URL=amqp://guest:guest@127.0.0.1:5672 \
 *     npx tsx test/chaos/broker-restart.ts [--force]
 *
 * Not part of `npm test`: it restarts the broker every other test file shares. It needs
 * rabbitmqctl for that broker (run as root, or as the rabbitmq user). It refuses to run while
 * other clients are connected to the broker (it waits up to a minute for them to leave) unless
 * `--force` is given. Prints PASS or FAIL last; exits 0 on PASS, 1 on FAIL.
 */
import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { Knex } from 'knex';
import { createApp, type App } from '../../core/kernel/app.js';
import { builtinAdapters } from '../../adapters/index.js';
import { builtinPlugins } from '../../plugins/index.js';
import { signUp } from '../helpers/accounts.js';
import { dropTestSchema, testConfig } from '../helpers/db.js';
import {
  HOST_SECRET,
  MAIL_SECRET,
  connectRepository,
  createWorkspace,
  receiveEmail,
  waitFor,
} from '../../plugins/fixes/test/helpers.js';

const run = promisify(execFile);
const TICKETS = 8;
const OUTAGE_MS = 4000;
const DOCS =
  '# Exporting data\n\n## Export invoices to CSV\n\nOpen Billing, choose Invoices, then click Export and pick CSV.\n';

type Row = Record<string, unknown>;
const failures: string[] = [];
/** Set while the broker is stopped by this script: every way out starts it again. */
let brokerStopped = false;
const check = (ok: boolean, what: string): void => {
  process.stdout.write(`${ok ? 'ok    ' : 'FAILED'} ${what}\n`);
  if (!ok) failures.push(what);
};
const say = (line: string): void => void process.stdout.write(`# ${line}\n`);

async function rabbitmqctl(...args: string[]): Promise<string> {
  const { stdout } = await run('rabbitmqctl', args, { timeout: 60_000 });
  return stdout;
}

/** Client connections the broker has now (other test runs, services). */
async function connections(): Promise<number> {
  return (await rabbitmqctl('-q', 'list_connections', 'pid')).split('\n').filter((l) => l.trim()).length;
}

async function brokerFree(force: boolean): Promise<void> {
  if (force) return;
  const until = Date.now() + 60_000;
  for (;;) {
    const n = await connections();
    if (n === 0) return;
    if (Date.now() > until)
      throw new Error(
        `${n} other client connection(s) on the broker; restarting it would break them (wait, or pass --force)`,
      );
    say(`${n} other client connection(s) on the broker; waiting for them to leave`);
    await sleep(5000);
  }
}

const count = async (q: Knex.QueryBuilder): Promise<number> => Number(((await q.count('* as n').first()) as Row).n);

async function main(): Promise<void> {
  const force = process.argv.includes('--force');
  if (!process.env.DATABASE_URL || !process.env.AMQP_URL)
    throw new Error('DATABASE_URL and AMQP_URL must be set (a real Postgres and RabbitMQ)');
  await rabbitmqctl('-q', 'status').catch((err: Error) => {
    throw new Error(`rabbitmqctl does not reach the broker here: ${err.message.split('\n')[0]}`);
  });
  await brokerFree(force);

  const config = testConfig({
    adapters: {
      codeHost: 'codehost-local',
      options: { 'mail-outbox': { webhookSecret: MAIL_SECRET }, 'codehost-local': { webhookSecret: HOST_SECRET } },
    },
    plugins: { fixes: { enabled: true, options: { pollMs: 100, leaseMs: 5000, backoffMs: [200, 500] } } },
    bus: { backoffMs: [200, 500, 1000] },
    log: { level: process.env.LOG_LEVEL ?? 'silent' },
  });
  let app: App | null = null;
  try {
    app = await createApp(config, { plugins: builtinPlugins, adapters: builtinAdapters });
    await app.start({ listen: false, scheduler: false });
    const db = app.db as Knex;
    const owner = await signUp(app, { orgName: 'Acme' });
    const ws = await createWorkspace(app, owner, 'Shop');
    await connectRepository(app, owner, ws.id, 'shop', { 'README.md': '# Shop\n', 'docs/export.md': DOCS });
    say(`service up (${app.dbInfo.engine}, ${app.bus.kind}, exchange ${config.bus.exchange})`);

    const email = (i: number) =>
      receiveEmail(app!, ws.inbound_address as string, {
        subject: `Export invoices (${i})`,
        body: 'How do I export my invoices to CSV?',
        from: `customer${i}@example.com`,
      });
    const tickets: string[] = [];
    for (let i = 0; i < TICKETS / 2; i++) tickets.push(await email(i));

    say('rabbitmqctl stop_app (mid-flow)');
    brokerStopped = true;
    await rabbitmqctl('stop_app');
    await waitFor(async () => !(await app!.bus.health()).ok, 'the service to notice the broker is gone', 15_000);
    check(true, 'the service noticed the broker is gone');
    for (let i = TICKETS / 2; i < TICKETS; i++) tickets.push(await email(i));
    check(tickets.length === TICKETS, 'emails are still accepted while the broker is down');
    await sleep(OUTAGE_MS);
    say('rabbitmqctl start_app');
    await rabbitmqctl('start_app');
    brokerStopped = false;

    const settled = await waitFor(
      async () => {
        const n = await count(db('fix_diagnoses').whereIn('ticket_id', tickets));
        return n >= TICKETS ? n : null;
      },
      'every ticket diagnosed after the restart',
      90_000,
    ).catch(() => 0);
    check(settled === TICKETS, `every ticket diagnosed (${settled}/${TICKETS})`);
    const drained = await waitFor(
      async () => (await count(db('outbox').whereNull('published_at'))) === 0,
      'the outbox to drain',
      30_000,
    ).then(
      () => true,
      () => false,
    );
    check(drained, 'every outbox row published');
    check(
      (await count(db('outbox').where('attempts', '>', 0))) > 0,
      'the relay kept events it could not publish during the outage',
    );
    check((await count(db('dead_letters'))) === 0, 'no dead letters');
    let once = true;
    for (const id of tickets) {
      const jobs = await count(db('fix_jobs').where({ ticket_id: id, kind: 'diagnose' }));
      const dx = await count(db('fix_diagnoses').where({ ticket_id: id }));
      const drafts = await count(db('ticket_drafts').where({ ticket_id: id }));
      if (jobs !== 1 || dx !== 1 || drafts !== 1) {
        once = false;
        say(`ticket ${id}: ${jobs} diagnosis job(s), ${dx} diagnosis(es), ${drafts} draft(s)`);
      }
    }
    check(once, 'each ticket: one diagnosis job, one diagnosis, one draft');
    check(
      (await count(db('inbox').where({ consumer: 'fixes.diagnose' }))) === TICKETS,
      'the diagnosing consumer handled each tickets.created once',
    );
    check((await app.bus.health()).ok, 'the bus is connected again');
  } finally {
    // Never leave the shared broker stopped.
    if (brokerStopped) await rabbitmqctl('start_app').catch((err: Error) => say(`start_app failed: ${err.message}`));
    await app?.stop().catch((err: Error) => say(`stop failed: ${err.message}`));
    await dropTestSchema(config).catch(() => undefined);
    rmSync(config.dataDir, { recursive: true, force: true });
  }
}

async function abort(reason: string): Promise<never> {
  if (brokerStopped) await rabbitmqctl('start_app').catch(() => undefined);
  process.stdout.write(`FAIL broker restart: ${reason}\n`);
  process.exit(1);
}
setTimeout(() => void abort('timed out after 180 s'), 180_000).unref();
process.once('SIGINT', () => void abort('interrupted'));
process.once('SIGTERM', () => void abort('terminated'));

main().then(
  () => {
    process.stdout.write(
      failures.length
        ? `FAIL broker restart: ${failures.join('; ')}\n`
        : 'PASS broker restart: nothing lost, nothing applied twice\n',
    );
    process.exit(failures.length ? 1 : 0);
  },
  (err: unknown) => {
    process.stdout.write(`FAIL broker restart: ${(err as Error).message ?? String(err)}\n`);
    process.exit(1);
  },
);
