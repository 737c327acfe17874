import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A local HTTP server that plays a provider's API in a test. */
export interface HttpPeerServer {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Stops it, ending kept-alive connections too (a client's pool would hold the close otherwise). */
  close(): Promise<void>;
}

/** Serves `handle` on a free loopback port; `handle` gets each request with its whole body. */
export async function serveHttpPeer(
  handle: (req: http.IncomingMessage, body: Buffer, res: http.ServerResponse) => void,
): Promise<HttpPeerServer> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => handle(req, Buffer.concat(chunks), res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
