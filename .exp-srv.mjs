import Hapi from '@hapi/hapi';
import HapiPino from 'hapi-pino';
import pino from 'pino';
import { createContainer, asValue } from 'awilix';
const server = Hapi.server({ port: 0, host: '127.0.0.1' });
const big = Buffer.alloc(100000, 'a');
const mode = process.env.MODE ?? '';
if (mode.includes('pino')) await server.register({ plugin: HapiPino, options: { instance: pino({ level: 'warn' }), logRequestComplete: true } });
if (mode === 'scopeonly') { const c = createContainer(); server.ext('onRequest', (request, h) => { request.app.scope = c.createScope(); return h.continue; }); }
if (mode === 'nostore') { const c = createContainer(); server.ext('onRequest', (request, h) => { const s = c.createScope(); s.register('request', asValue(request)); return h.continue; }); }
if (mode === 'plainobj') { server.ext('onRequest', (request, h) => { request.app.scope = { request }; return h.continue; }); }
if (mode.includes('awilix')) {
  const container = createContainer();
  server.ext('onRequest', (request, h) => { request.app.scope = container.createScope(); request.app.scope.register('request', asValue(request)); return h.continue; });
}
server.route({ method: 'GET', path: '/', handler: async (req, h) => {
  await new Promise((r) => setImmediate(r));
  const parts = []; for (let i = 0; i < 50; i++) parts.push(big.toString('latin1', i * 900, i * 900 + 930));
  return h.response('{"items":[' + parts.join(',') + ']}').type('application/json');
} });
await server.start(); console.log('listening ' + server.info.port);
