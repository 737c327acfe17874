/**
 * A database that is gone for a moment (restart, failover) answers 503 service_unavailable with Retry-After, never a
 * 500 (issue 31, test/chaos/postgres-restart.test.ts); other errors keep their 500.
 */
import t from 'tap';
import Hapi from '@hapi/hapi';
import { registerErrorEnvelope } from '../../core/http/errors.js';
import { isDatabaseUnavailable } from '../../core/data/unavailable.js';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

void t.test('errors of an unreachable database are recognised, through wrappers too', (t) => {
  t.ok(isDatabaseUnavailable(withCode('terminating connection due to administrator command', '57P01')), '57P01');
  t.ok(isDatabaseUnavailable(withCode('the database system is starting up', '57P03')), '57P03');
  t.ok(isDatabaseUnavailable(withCode('connection failure', '08006')), 'class 08');
  t.ok(isDatabaseUnavailable(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')), 'ECONNREFUSED');
  t.ok(isDatabaseUnavailable(new Error('Connection terminated unexpectedly')), 'pg: connection terminated');
  t.ok(
    isDatabaseUnavailable(new Error('ROLLBACK - Client has encountered a connection error and is not queryable')),
    'pg: a broken client, as knex reports it',
  );
  t.ok(
    isDatabaseUnavailable(
      Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' }),
    ),
  );
  t.ok(
    isDatabaseUnavailable(Object.assign(new Error('wrapped'), { nativeError: withCode('x', '57P01') })),
    "objection's DBError (nativeError)",
  );
  t.ok(isDatabaseUnavailable(new Error('outer', { cause: withCode('x', 'ECONNRESET') })), 'a cause');
  t.notOk(isDatabaseUnavailable(withCode('duplicate key value violates unique constraint', '23505')), 'a constraint');
  t.notOk(isDatabaseUnavailable(new Error('Cannot read properties of undefined')), 'a bug');
  t.notOk(isDatabaseUnavailable(null), 'nothing');
  t.end();
});

void t.test('the envelope answers 503 with Retry-After for them, 500 for the rest', async (t) => {
  const server = Hapi.server();
  const reported: string[] = [];
  registerErrorEnvelope(server, (err) => void reported.push(err.message));
  server.route([
    {
      method: 'GET',
      path: '/gone',
      handler: () => {
        throw withCode('terminating connection due to administrator command', '57P01');
      },
    },
    {
      method: 'GET',
      path: '/bug',
      handler: () => {
        throw new Error('Cannot read properties of undefined');
      },
    },
  ]);
  const gone = await server.inject('/gone');
  t.equal(gone.statusCode, 503);
  t.equal(gone.headers['retry-after'], '2');
  t.match(JSON.parse(gone.payload), { statusCode: 503, error: 'Service Unavailable', code: 'service_unavailable' });
  t.notMatch(gone.payload, /administrator command|\n\s+at /, 'no internals, no stack');
  const bug = await server.inject('/bug');
  t.equal(bug.statusCode, 500);
  t.match(JSON.parse(bug.payload), { code: 'internal_error' });
  t.same(reported, ['Cannot read properties of undefined'], 'only the 500 goes to the error reporter');
});
