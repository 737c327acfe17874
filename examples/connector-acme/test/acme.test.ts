import t from 'tap';
import { hmacSha256Hex, type ConnectorSettings } from '../../../core/contracts/index.js';
import { runConnectorAdapterContract } from '../../../test/contracts/connector-adapter.js';
import acme, { AcmeConnectorAdapter } from '../index.js';

const SECRET = 'acme-client-secret-0123';
const settings: ConnectorSettings = {
  connectorId: 'con_1',
  workspaceId: 'ws_1',
  config: { project: 'shop' },
  secrets: { client_secret: SECRET },
  lastDeliveryAt: null,
};
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
        {
          name: 'no project',
          config: {},
          secrets: { client_secret: SECRET },
          code: 'missing_field',
          field: 'config.project',
        },
        {
          name: 'no secret',
          config: { project: 'shop' },
          secrets: {},
          code: 'missing_field',
          field: 'secrets.client_secret',
        },
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
