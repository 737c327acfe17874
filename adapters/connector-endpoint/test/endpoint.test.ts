import t from 'tap';
import { adapterModule } from '../../../core/contracts/index.js';
import { newToken } from '../../../core/security/tokens.js';
import { connectorSettings, runConnectorAdapterContract } from '../../../test/contracts/connector-adapter.js';
import endpointModule, { EndpointConnectorAdapter } from '../index.js';

const { token, hash } = newToken('pwi');
const settings = (lastDeliveryAt: Date | null = null) => connectorSettings({}, {}, { lastDeliveryAt, tokenHash: hash });

t.test('connector-endpoint passes the ConnectorAdapter contract kit', (t) =>
  runConnectorAdapterContract(t, {
    name: 'connector-endpoint',
    kind: 'endpoint',
    create: () => new EndpointConnectorAdapter(EndpointConnectorAdapter.validateOptions({})),
    module: endpointModule,
    validateOptions: (o: unknown) => EndpointConnectorAdapter.validateOptions(o),
    options: {
      valid: { maxEventsPerRequest: 50 },
      invalid: [{ options: { maxEventsPerRequest: 0 }, key: 'maxEventsPerRequest' }],
    },
    settings: { valid: { config: {}, secrets: {} } },
    test: [
      { name: 'nothing arrived yet', settings: settings(null), ok: null, code: 'awaiting_delivery' },
      { name: 'events arrive', settings: settings(new Date()), ok: null, code: 'receiving' },
    ],
    push: {
      settings: settings(),
      signed: {
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        rawBody: Buffer.from(
          JSON.stringify([
            {
              type: 'TypeError',
              message: 'form is null',
              level: 'warn',
              user: 'u-1',
              frames: [{ filename: 'app.js', lineno: 3, function: 'submit' }],
            },
          ]),
        ),
      },
      forged: [
        {
          name: 'another token',
          delivery: { headers: { authorization: `Bearer ${newToken('pwi').token}` }, rawBody: Buffer.from('{}') },
        },
        {
          name: 'the hash as token',
          delivery: { headers: { authorization: `Bearer ${hash}` }, rawBody: Buffer.from('{}') },
        },
      ],
    },
  }),
);

t.test('normalizePush maps the generic shape', (t) => {
  const a = new EndpointConnectorAdapter(EndpointConnectorAdapter.validateOptions({}));
  const [e] = a.normalizePush({
    message: 'boom',
    level: 'critical',
    occurred_at: 1700000000000,
    fingerprint: ['a', 'b'],
    user: { id: 7 },
    release: 'v1',
  });
  t.equal(e.level, 'fatal');
  t.equal(e.type, 'Error');
  t.equal(e.occurred_at, new Date(1700000000000).toISOString());
  t.equal(e.fingerprint, 'a:b');
  t.same(e.user, { id: '7' });
  t.throws(() => a.normalizePush({ message: 'x', occurred_at: 'yesterday' }), { code: 'invalid_payload' });
  t.equal(adapterModule('connector', EndpointConnectorAdapter).name, 'connector-endpoint');
  t.equal(
    a.verifyPush({ authorization: `Bearer ${token}` }, Buffer.alloc(0), { ...settings(), tokenHash: null }),
    false,
    'no stored hash, no push',
  );
  t.end();
});
