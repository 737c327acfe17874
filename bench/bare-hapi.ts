// The ceiling: a bare hapi server answering a small JSON body, measured in the same run as
// Patchwell so every scenario reports a ratio to it.
import Hapi from '@hapi/hapi';

const server = Hapi.server({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
server.route({ method: 'GET', path: '/', handler: () => ({ status: 'ok' }) });
await server.start();
process.stdout.write(`listening ${server.info.port}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
