import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy in front of a service (the broker, in the chaos and bus tests): `cut()` drops every
 * connection and refuses new ones until `restore()`, which listens again on the same port.
 */
export class TcpProxy {
  port = 0;
  /** Connections accepted since the start (reconnects count). */
  accepted = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  constructor(private readonly upstreamUrl: string) {}

  /** The upstream URL with the proxy's host and port. */
  get url(): string {
    const u = new URL(this.upstreamUrl);
    u.hostname = '127.0.0.1';
    u.port = String(this.port);
    return u.toString();
  }

  /** Listens (again, on the same port after a cut). */
  async restore(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => this.pipe(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  /** Closes the listener (new connections are refused) and destroys every proxied connection. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  private pipe(client: Socket): void {
    this.accepted++;
    const target = new URL(this.upstreamUrl);
    const upstream = connect(Number(target.port || 5672), target.hostname);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => this.sockets.delete(socket));
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
