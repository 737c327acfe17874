import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { isAdapterError, type AgentExecutor, type JobIO, type JobResult } from '../../../core/contracts/index.js';
import type { FixJob } from '../models/index.js';
import type { FixesDeps } from './deps.js';
import type { JobPayloads } from './job-payload.js';
import type { JobQueue } from './job-queue.js';

/**
 * Runs leased jobs in this process: claims what its executors can run (on the bus signal and on
 * a poll), hands each to its executor with a JobIO that writes events and keeps the lease with
 * heartbeats, and records the result or the crash. Jobs of executors that run remote (runner,
 * mcp: `runsIn: 'remote'`) are never claimed here: they wait queued for their remote side.
 */
export class JobWorker {
  readonly owner = `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;
  private readonly inFlight = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private draining: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly d: Pick<FixesDeps, 'executors' | 'options' | 'log'>,
    private readonly queue: JobQueue,
    private readonly payloads: JobPayloads,
  ) {}

  start(): void {
    this.stopped = false;
    this.timer = setInterval(() => this.kick(), this.d.options.pollMs);
    this.timer.unref();
    this.kick();
  }

  /** Stops claiming and waits (up to `waitMs`) for jobs in flight; their leases expire if they do not end. */
  async stop(waitMs = 5_000): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.race([
      Promise.allSettled([...this.inFlight.values(), this.draining]),
      new Promise((r) => setTimeout(r, waitMs).unref()),
    ]);
  }

  /** Looks for work now (the bus signal). */
  kick(): void {
    if (this.stopped) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain()
      .catch((err: unknown) => this.d.log.error({ err }, 'fixes: claiming jobs failed'))
      .finally(() => {
        this.draining = null;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves when nothing is being claimed or run (tests). */
  async idle(): Promise<void> {
    while (this.draining || this.inFlight.size) await Promise.allSettled([this.draining, ...this.inFlight.values()]);
  }

  private executorNames(): string[] {
    // Remote jobs stay queued for their runner or IDE agent, which claims them through its own API.
    return this.d.executors.filter((e) => e.runsIn !== 'remote').map((e) => e.identifier); // unset = worker (the base's default)
  }

  private async drain(): Promise<void> {
    while (!this.stopped && this.inFlight.size < this.d.options.maxConcurrentJobs) {
      const job = await this.queue.claim(this.owner, this.executorNames());
      if (!job) return;
      // run() records a failure with queue.fail(); when that write fails too (the database is gone), the
      // lease expires and the job runs again: logged here, never an unhandled rejection that ends the worker.
      const p = this.run(job)
        .catch((err: unknown) =>
          this.d.log.error({ err, jobId: job.id }, 'fixes: job ended unrecorded; its lease expires'),
        )
        .finally(() => {
          this.inFlight.delete(job.id);
          this.kick();
        });
      this.inFlight.set(job.id, p);
    }
  }

  private async run(job: FixJob): Promise<void> {
    const executor = this.d.executors.find((e) => e.identifier === job.executor) as AgentExecutor;
    let cancelled = false;
    let completed = false;
    let beating: Promise<unknown> = Promise.resolve();
    const beat = async (): Promise<boolean> => {
      const { held, cancelled: c } = await this.queue.heartbeat(job.id, this.owner);
      if (!held || c) {
        if (!cancelled) await executor.cancel(job.id).catch(() => undefined);
        cancelled = true;
      }
      return cancelled;
    };
    const timer = setInterval(
      () => {
        beating = beat().catch((err: unknown) => this.d.log.warn({ err, jobId: job.id }, 'fixes: heartbeat failed'));
      },
      Math.max(250, Math.floor(this.d.options.leaseMs / 3)),
    );
    timer.unref();
    try {
      const { agentJob, tools, secrets } = await this.payloads.build(job);
      const io: JobIO = {
        tools,
        emit: async (e) => this.queue.emit(job, e, secrets),
        heartbeat: beat,
        isCancelled: () => cancelled,
        complete: async (result: JobResult) => {
          if (completed) return;
          completed = true;
          await this.queue.finish(job.id, this.owner, result);
        },
      };
      await executor.start(agentJob, io);
      if (!completed) {
        await this.queue.fail(
          job.id,
          this.owner,
          { code: 'no_result', detail: 'the executor ended without a result' },
          { retryable: true },
        );
      }
    } catch (err) {
      const code = isAdapterError(err) ? err.code : 'executor_error';
      const retryable = isAdapterError(err) ? err.retryable || code !== 'not_supported' : true;
      this.d.log.warn({ err, jobId: job.id }, 'fixes: job attempt failed');
      if (!completed)
        await this.queue.fail(
          job.id,
          this.owner,
          { code, detail: (err as Error).message ?? String(err) },
          { retryable },
        );
    } finally {
      clearInterval(timer);
      await beating;
    }
  }
}
