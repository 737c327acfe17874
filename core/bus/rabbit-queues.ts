import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { Connection } from 'rabbitmq-client';
import type { QueueNames } from './rabbit-delivery.js';
import { errorMessage, withTimeout, type BusLog } from './support.js';

export type QueueType = 'quorum' | 'classic';
export type QueueTypeSetting = QueueType | 'auto';

/** What the broker can do, from the version it reports when a connection opens. */
export interface BrokerFeatures {
  /** e.g. "3.10.8"; null when it could not be read. */
  version: string | null;
  /** Quorum queues exist (3.8). */
  quorum: boolean;
  /** Quorum queues honour per-message TTL and at-least-once dead-lettering (3.10). */
  quorumTtl: boolean;
}

type Args = Record<string, unknown>;

/** One queue declaration as the consumer, its requeuer and the eager declaration send it. */
export interface QueueDeclaration {
  queue: string;
  durable: true;
  arguments: Args;
}

export interface QueuePlan {
  main: QueueDeclaration;
  retry: QueueDeclaration;
  dead: QueueDeclaration;
}

/** A queue exists on the broker with other arguments (usually another type) than this process declares. */
export class QueueMismatchError extends Error {
  override name = 'QueueMismatchError';
}

export function featuresOf(version: string | null): BrokerFeatures {
  const [major = 0, minor = 0] = (version ?? '').split('.').map((n) => Number.parseInt(n, 10) || 0);
  const atLeast = (maj: number, min: number): boolean => major > maj || (major === maj && minor >= min);
  return { version, quorum: atLeast(3, 8), quorumTtl: atLeast(3, 10) };
}

/**
 * Reads the broker's version from the `connection.start` frame (server-properties `version`):
 * rabbitmq-client does not expose it, so a short socket sends the protocol header, reads that
 * one frame and closes. Null when the broker is unreachable or answers something else.
 */
export async function readBrokerVersion(url: string, timeoutMs: number): Promise<string | null> {
  const u = new URL(url);
  const tls = u.protocol === 'amqps:';
  const port = Number(u.port || (tls ? 5671 : 5672));
  let socket: Socket | null = null;
  try {
    return await withTimeout(
      timeoutMs,
      'reading the RabbitMQ version',
      new Promise<string | null>((resolve, reject) => {
        const s = tls ? tlsConnect({ host: u.hostname, port, servername: u.hostname }) : netConnect(port, u.hostname);
        socket = s;
        let buf = Buffer.alloc(0);
        s.once('error', reject);
        s.once('close', () => resolve(null));
        s.on(tls ? 'secureConnect' : 'connect', () => s.write(Buffer.from([65, 77, 81, 80, 0, 0, 9, 1])));
        s.on('data', (chunk: Buffer) => {
          buf = Buffer.concat([buf, chunk]);
          if (buf.length < 7) return;
          const size = buf.readUInt32BE(3);
          if (buf.length < 7 + size + 1) return;
          resolve(versionFromStartFrame(buf.subarray(7, 7 + size)));
        });
      }),
    );
  } catch {
    return null;
  } finally {
    (socket as Socket | null)?.destroy();
  }
}

/** connection.start payload: class 10, method 10, two version octets, then the server-properties table. */
function versionFromStartFrame(payload: Buffer): string | null {
  if (payload.length < 10 || payload.readUInt16BE(0) !== 10 || payload.readUInt16BE(2) !== 10) return null;
  const end = 10 + payload.readUInt32BE(6);
  let at = 10;
  while (at < end) {
    const keyLength = payload.readUInt8(at);
    const key = payload.toString('utf8', at + 1, at + 1 + keyLength);
    at += 1 + keyLength;
    const type = String.fromCharCode(payload.readUInt8(at++));
    if (type === 'S' || type === 'F') {
      const length = payload.readUInt32BE(at);
      if (type === 'S' && key === 'version') return payload.toString('utf8', at + 4, at + 4 + length);
      at += 4 + length;
    } else if (type === 't' || type === 'b') at += 1;
    else return null; // a type RabbitMQ does not send here: stop rather than misread
  }
  return null;
}

/**
 * The queue type this process wants for new queues: the setting, or with `auto` quorum when the
 * broker has quorum queues (3.8), else classic.
 */
export function preferredType(setting: QueueTypeSetting, features: BrokerFeatures): QueueType {
  if (setting !== 'auto') return setting;
  return features.quorum ? 'quorum' : 'classic';
}

/**
 * The three declarations of a consumer for a queue type. Quorum: dead-lettering is at-least-once
 * (needs `x-overflow: reject-publish`), so a message moving from `.retry` back to the main queue
 * is never dropped on the way. Per-message TTL in quorum queues needs 3.10: on 3.8/3.9 `.retry`
 * stays classic.
 */
export function declarationsFor(queues: QueueNames, type: QueueType, features: BrokerFeatures): QueuePlan {
  const toMain: Args = { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queues.main };
  const toDead: Args = { 'x-dead-letter-exchange': '', 'x-dead-letter-routing-key': queues.dead };
  if (type === 'classic') {
    return {
      main: { queue: queues.main, durable: true, arguments: toDead },
      retry: { queue: queues.retry, durable: true, arguments: toMain },
      dead: { queue: queues.dead, durable: true, arguments: {} },
    };
  }
  const quorum: Args = { 'x-queue-type': 'quorum' };
  const reliable: Args = features.quorumTtl
    ? { ...quorum, 'x-dead-letter-strategy': 'at-least-once', 'x-overflow': 'reject-publish' }
    : quorum;
  return {
    main: { queue: queues.main, durable: true, arguments: { ...reliable, ...toDead } },
    retry: features.quorumTtl
      ? { queue: queues.retry, durable: true, arguments: { ...reliable, ...toMain } }
      : { queue: queues.retry, durable: true, arguments: toMain },
    dead: { queue: queues.dead, durable: true, arguments: quorum },
  };
}

export function isPreconditionFailed(err: unknown): boolean {
  return (err as { code?: unknown } | null)?.code === 'PRECONDITION_FAILED';
}

/**
 * Declares a consumer's queues and returns the plan that matches the broker. A queue that already
 * exists with other arguments fails its declaration with PRECONDITION_FAILED (406); with `auto`
 * the declaration of the other type is tried and, when the queue is of that type, kept for that
 * queue (an upgrade from classic queues keeps working; docs/bus.md says how to migrate them).
 * With an explicit type the mismatch is a QueueMismatchError naming the queue and the way out.
 */
export async function declareQueues(
  conn: Connection,
  queues: QueueNames,
  setting: QueueTypeSetting,
  features: BrokerFeatures,
  log: BusLog,
): Promise<QueuePlan> {
  const wanted = preferredType(setting, features);
  const preferred = declarationsFor(queues, wanted, features);
  const other = declarationsFor(queues, wanted === 'quorum' ? 'classic' : 'quorum', features);
  const plan: QueuePlan = { ...preferred };
  for (const role of ['main', 'retry', 'dead'] as const) {
    try {
      await conn.queueDeclare(preferred[role]);
      continue;
    } catch (err) {
      if (!isPreconditionFailed(err)) throw err;
      const text = errorMessage(err);
      const fix = `see docs/bus.md, "Moving to quorum queues"`;
      if (setting !== 'auto') {
        throw new QueueMismatchError(
          `RabbitMQ queue ${preferred[role].queue} exists with other arguments than bus.queueType "${setting}" declares ` +
            `(${text}); set bus.queueType to "auto" to keep the existing queue, or migrate it (${fix})`,
        );
      }
      try {
        await conn.queueDeclare(other[role]);
      } catch (again) {
        if (!isPreconditionFailed(again)) throw again;
        throw new QueueMismatchError(
          `RabbitMQ queue ${preferred[role].queue} exists with arguments Patchwell does not declare (${text}); ` +
            `delete it once it is empty (${fix})`,
        );
      }
      plan[role] = other[role];
      log.warn(
        { queue: other[role].queue, wanted, existing: wanted === 'quorum' ? 'classic' : 'quorum' },
        `RabbitMQ queue ${other[role].queue} already exists as another type; keeping it (${fix})`,
      );
    }
  }
  return plan;
}
