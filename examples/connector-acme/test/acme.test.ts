import t from 'tap';
import { hmacSha256Hex } from '../../../core/contracts/index.js';
import {
  connectorSettings,
  refusedSettings,
  runConnectorAdapterContract,
} from '../../../test/contracts/connector-adapter.js';
import acme, { AcmeConnectorAdapter } from '../index.js';

const SECRET = 'acme-client-secret-0123';
const settings = connectorSettings({ project: 'shop' }, { client_secret: SECRET });
const body = Buffer.from(
  JSON.stringify({
    lines: [
      { id: 'l-1', ts: 1700000000, severity: 'ERROR', logger: 'checkout', text: 'payment declined for order 7' },
      { severity: 'INFO', text: 'ok' },
    ],
  }),
);

t.test('a partner connector passes the ConnectorAdapter contract kit', (t) =>
  runConnectorAdapterContract(t, {
    name: 'connector-acme',
    kind: 'error_tracker',
    create: () => new AcmeConnectorAdapter(AcmeConnectorAdapter.validateOptions({})),
    module: acme,
    settings: {
      valid: { config: { project: 'shop' }, secrets: { client_secret: SECRET } },
      invalid: [
        refusedSettings('no project', 'missing_field@config.project', {}, { client_secret: SECRET }),
        refusedSettings('no secret', 'missing_field@secrets.client_secret', { project: 'shop' }),
      ],
    },
    test: [{ name: 'nothing arrived yet', settings, ok: null, code: 'awaiting_delivery' }],
    push: {
      settings,
      signed: {
        headers: { 'x-acme-signature': `sha256=${hmacSha256Hex(SECRET, body)}`, 'content-type': 'application/json' },
        rawBody: body,
      },
      bodySigned: true,
    },
  }),
);
