// Deletes the RabbitMQ queues and exchanges that benchmark runs (and killed test runs) leave on a
// local broker: every queue whose name starts with one of the given prefixes and that no consumer
// reads. Leftover quorum queues pile up run after run (about 54 a service); with a few hundred, the
// broker of this machine stopped accepting AMQP connections.
//
//   node --import tsx bench/purge-queues.ts pw_bench_ [pw_t_ …]
//
// AMQP cannot list queues, so the names come from one `rabbitmqctl list_queues`; the deletions go
// over AMQP (AMQP_URL, default amqp://guest:guest@127.0.0.1:5672): one rabbitmqctl call per queue
// would start an Erlang VM each time, minutes for a few hundred queues.
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { Connection } from 'rabbitmq-client';

/** The queues named with one of the prefixes, and how many consumers read each; null when rabbitmqctl cannot answer. */
function listQueues(prefixes: readonly string[]): Array<{ name: string; consumers: number }> | null {
  let out: string;
  try {
    out = execFileSync('rabbitmqctl', ['-q', '-t', '30', 'list_queues', 'name', 'consumers', '--no-table-headers'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return null;
  }
  return out
    .split('\n')
    .map((line) => line.split('\t'))
    .filter(([name]) => name && prefixes.some((p) => name.startsWith(p)))
    .map(([name, consumers]) => ({ name, consumers: Number(consumers?.trim() ?? 'NaN') }));
}

const idleOf = (listed: Array<{ name: string; consumers: number }>) =>
  listed.flatMap((q) => (q.consumers === 0 ? [q.name] : []));

/** Queues named with one of the prefixes that no consumer reads; null when rabbitmqctl cannot answer. */
export function idleQueues(prefixes: readonly string[]): string[] | null {
  const listed = listQueues(prefixes);
  return listed && idleOf(listed);
}

/**
 * Deletes those queues and their exchanges (`<exchange>.<consumer>[.retry|.dead]`); answers how many queues went.
 * `settleMs`: how long to wait for consumers that are still going away (the broker drops a closed connection's
 * consumers a moment after its process exits).
 */
export async function purgeQueues(
  prefixes: readonly string[],
  { url = process.env.AMQP_URL, settleMs = 0 }: { url?: string; settleMs?: number } = {},
): Promise<number | null> {
  const until = Date.now() + settleMs;
  let listed = listQueues(prefixes);
  while (listed?.some((q) => q.consumers !== 0) && Date.now() < until) {
    await sleep(250);
    listed = listQueues(prefixes);
  }
  if (listed === null) return null;
  const queues = idleOf(listed);
  if (queues.length === 0) return 0;
  const conn = new Connection({ url: url ?? 'amqp://guest:guest@127.0.0.1:5672', retryLow: 200, retryHigh: 1000 });
  try {
    await conn.onConnect(10_000, true);
    let deleted = 0;
    for (const queue of queues) {
      await conn.queueDelete({ queue }).then(
        () => deleted++,
        () => undefined, // gone already, or a consumer arrived since the listing
      );
    }
    for (const exchange of new Set(queues.map((q) => q.split('.')[0])))
      await conn.exchangeDelete({ exchange }).catch(() => undefined);
    return deleted;
  } finally {
    await conn.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const prefixes = process.argv.slice(2);
  if (prefixes.length === 0 || prefixes.some((p) => p.length < 3)) {
    console.error('usage: node --import tsx bench/purge-queues.ts <prefix> [prefix …] (each at least 3 characters)');
    process.exit(2);
  }
  const deleted = await purgeQueues(prefixes);
  console.log(
    deleted === null ? 'purge-queues: rabbitmqctl did not answer' : `purge-queues: ${deleted} queues deleted`,
  );
}
