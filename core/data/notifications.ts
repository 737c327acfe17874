import pg from 'pg';
import type { Logger } from 'pino';

export interface Listener {
  /** Whether the LISTEN connection is up (notifications sent now will arrive). */
  readonly connected: boolean;
  stop(): Promise<void>;
}

export interface ListenOptions {
  /** Postgres connection string. */
  url: string;
  channel: string;
  /** A notification on the channel (payload as sent). */
  onNotify(payload: string): void;
  /** The connection went up (true) or down (false); notifications sent while down are lost. */
  onState?(connected: boolean): void;
  log: Pick<Logger, 'warn' | 'info'>;
  /** Delay before a reconnect, doubled per failure up to 30 s. */
  retryMs?: number;
}

const CHANNEL = /^[a-z_][a-z0-9_]*$/;

/**
 * LISTEN on a Postgres channel over a connection of its own (a pooled connection would be
 * reused for queries), reconnecting with back-off. A caller that must not miss a notification
 * treats "down" as "everything may have changed" (onState).
 */
export function listen(opts: ListenOptions): Listener {
  if (!CHANNEL.test(opts.channel)) throw new TypeError(`listen: channel "${opts.channel}" is not a plain identifier`);
  let client: pg.Client | null = null;
  let connected = false;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let delay = opts.retryMs ?? 500;

  const setState = (up: boolean) => {
    if (connected === up) return;
    connected = up;
    opts.onState?.(up);
  };
  const retry = () => {
    if (stopped || timer) return;
    timer = setTimeout(() => {
      timer = null;
      void connect();
    }, delay);
    delay = Math.min(delay * 2, 30_000);
  };
  const connect = async () => {
    const c = new pg.Client({ connectionString: opts.url });
    client = c;
    c.on('notification', (msg) => {
      if (msg.channel === opts.channel) opts.onNotify(msg.payload ?? '');
    });
    c.on('error', (err) => {
      opts.log.warn({ err, channel: opts.channel }, 'listen: the connection failed; reconnecting');
      setState(false);
      void c.end().catch(() => {});
      retry();
    });
    c.on('end', () => {
      setState(false);
      retry();
    });
    try {
      await c.connect();
      await c.query(`listen ${opts.channel}`);
      if (stopped) return void (await c.end());
      delay = opts.retryMs ?? 500;
      setState(true);
    } catch (err) {
      opts.log.warn({ err, channel: opts.channel }, 'listen: could not connect; retrying');
      setState(false);
      void c.end().catch(() => {});
      retry();
    }
  };
  void connect();

  return {
    get connected() {
      return connected;
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      setState(false);
      await client?.end().catch(() => {});
    },
  };
}
