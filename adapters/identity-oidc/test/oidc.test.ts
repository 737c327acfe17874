import http from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import Provider from 'oidc-provider';
import { adapterModule } from '../../../core/contracts/index.js';
import { runIdentityProviderContract, kitConnection } from '../../../test/contracts/identity-provider.js';
import { OidcIdentityProvider } from '../oidc-identity-provider.js';

const loopbackDeps = { config: { security: { allowLoopbackFetch: true } }, log: undefined };
const strictDeps = { config: { security: { allowLoopbackFetch: false } }, log: undefined };

async function listen(handler: http.RequestListener): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

t.test('identity-oidc passes the IdentityProvider contract against oidc-provider', async (t) => {
  const server = await listen((req, res) => provider.callback()(req, res));
  const issuer = server.url;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'kit',
        client_secret: 'kit-secret-0123456789',
        redirect_uris: ['http://localhost:3000/v1/auth/sso/oidc/callback'],
      },
    ],
  });
  t.teardown(() => server.close());

  await runIdentityProviderContract(t, {
    name: 'identity-oidc',
    protocol: 'oidc',
    create: () => new OidcIdentityProvider(OidcIdentityProvider.validateOptions({}), loopbackDeps),
    module: adapterModule('identity', OidcIdentityProvider),
    options: {
      valid: { scopes: 'openid email' },
      invalid: [{ options: { requestTimeoutMs: 5 }, key: 'requestTimeoutMs' }],
    },
    validateOptions: (o) => OidcIdentityProvider.validateOptions(o),
    connection: kitConnection('oidc', { issuer, clientId: 'kit', clientSecret: 'kit-secret-0123456789' }),
    badConnections: [
      {
        name: 'an issuer with another spelling',
        connection: kitConnection('oidc', { issuer: `${issuer}/`, clientId: 'kit', clientSecret: 'x' }),
        error: 'issuer_mismatch',
      },
    ],
  });
});

t.test('discovery goes only to public addresses', async (t) => {
  const strict = new OidcIdentityProvider(OidcIdentityProvider.validateOptions({ requestTimeoutMs: 2000 }), strictDeps);
  const loopback = new OidcIdentityProvider(
    OidcIdentityProvider.validateOptions({ requestTimeoutMs: 2000 }),
    loopbackDeps,
  );
  const test = (idp: OidcIdentityProvider, issuer: string) =>
    idp.testConnection(kitConnection('oidc', { issuer, clientId: 'c', clientSecret: 's' }));

  for (const issuer of [
    'https://10.0.0.1',
    'https://169.254.169.254',
    'https://[fd00:ec2::254]',
    'https://[::1]:9443',
    'https://127.0.0.1:9443',
    'https://100.64.0.1',
    'https://[::ffff:10.0.0.1]',
  ]) {
    const r = await test(strict, issuer);
    t.same([r.ok, r.error], [false, 'blocked_address'], issuer);
  }
  t.same((await test(strict, 'http://idp.example.com')).error, 'insecure_issuer', 'plain http');

  const redirector = await listen((_req, res) => {
    res.writeHead(302, { location: 'http://10.0.0.1/.well-known/openid-configuration' });
    res.end();
  });
  t.teardown(() => redirector.close());
  const r = await test(loopback, redirector.url);
  t.same([r.ok, r.error], [false, 'blocked_address'], 'a redirect to a private address');
  t.equal(r.details.address, '10.0.0.1');

  const metadata = await listen((_req, res) => {
    res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
    res.end();
  });
  t.teardown(() => metadata.close());
  t.same((await test(loopback, metadata.url)).error, 'blocked_address', 'a redirect to the metadata address');

  const huge = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ issuer: 'x', padding: 'x'.repeat(2 * 1024 * 1024) }));
  });
  t.teardown(() => huge.close());
  const big = await test(loopback, huge.url);
  t.same([big.error, big.details.reason], ['discovery_failed', 'too_large'], 'answers are capped');
});
