/**
 * Contract kit of IdentityProvider. Every single sign-on adapter runs it in its own test:
 *
 *   await runIdentityProviderContract(t, { name: 'identity-oidc', protocol: 'oidc', create, connection: await localIssuer() });
 */
import { isDeepStrictEqual } from 'node:util';
import Joi from 'joi';
import {
  SIGN_IN_ERROR_CODES,
  SSO_TEST_ERRORS,
  type IdentityProvider,
  type SsoConnectionSettings,
  type SsoProtocol,
  type SsoTestError,
} from '../../core/contracts/index.js';
import {
  describeError,
  expectAdapterError,
  isHttpUrl,
  kitSuffix,
  problems,
  runCommonCases,
  shapes,
  urlParamValues,
  withAdapter,
  type ContractTest,
  type KitOptions,
} from './common.js';

export interface IdentityProviderKitOptions extends KitOptions<IdentityProvider> {
  protocol: SsoProtocol;
  /** A connection that works (a local IdP), for the test and sign-in start cases. */
  connection?: SsoConnectionSettings;
  /** Connections that must fail the test, with the error expected. Vendor-free defaults are added. */
  badConnections?: Array<{ name: string; connection: SsoConnectionSettings; error: SsoTestError }>;
}

const testResultSchema = Joi.object({
  ok: Joi.boolean().required(),
  details: shapes.record.required(),
  error: Joi.string()
    .valid(...SSO_TEST_ERRORS)
    .when('ok', { is: false, then: Joi.required(), otherwise: Joi.forbidden() }),
});

const identitySchema = Joi.object({
  subject: shapes.nonEmpty.required(),
  email: Joi.string().email({ tlds: false }).lowercase().required(),
  emailVerified: Joi.boolean().required(),
  name: Joi.string().allow(null).required(),
  assertion: Joi.object({ id: shapes.nonEmpty.required(), expiresAt: Joi.string().isoDate().required() }),
});

export const checkConnectionTestResult = (v: unknown): string[] => problems(testResultSchema, v);
export const checkSsoIdentity = (v: unknown): string[] => problems(identitySchema, v);

/** A connection skeleton with the service's own addresses filled in. */
export function kitConnection(protocol: SsoProtocol, over: Partial<SsoConnectionSettings> = {}): SsoConnectionSettings {
  const id = `sso_kit${kitSuffix()}`;
  const base = 'http://localhost:3000/v1/auth/sso';
  return {
    id,
    protocol,
    issuer: null,
    clientId: null,
    clientSecret: null,
    idpSsoUrl: null,
    idpCert: null,
    idpMetadataXml: null,
    serviceProvider: {
      redirectUri: `${base}/oidc/callback`,
      entityId: `http://localhost:3000/saml/${id}`,
      acsUrl: `${base}/saml/${id}/acs`,
      metadataUrl: `${base}/saml/${id}/metadata`,
    },
    ...over,
  };
}

/** Failing connections every adapter of the protocol must recognise, with no network. */
function defaultBadConnections(
  protocol: SsoProtocol,
): Array<{ name: string; connection: SsoConnectionSettings; errors: SsoTestError[] }> {
  if (protocol === 'oidc') {
    return [
      {
        name: 'an http issuer',
        connection: kitConnection('oidc', {
          issuer: 'http://idp.kit.example.test',
          clientId: 'kit',
          clientSecret: 'kit-secret',
        }),
        errors: ['insecure_issuer', 'blocked_address', 'discovery_failed'],
      },
      {
        name: 'an issuer on a loopback address',
        connection: kitConnection('oidc', {
          issuer: 'https://127.0.0.1:9/',
          clientId: 'kit',
          clientSecret: 'kit-secret',
        }),
        errors: ['blocked_address', 'discovery_failed'],
      },
    ];
  }
  return [
    {
      name: 'a certificate that is not one',
      connection: kitConnection('saml', {
        issuer: 'https://idp.kit.example.test',
        idpSsoUrl: 'https://idp.kit.example.test/sso',
        idpCert: 'not a certificate',
      }),
      errors: ['certificate_invalid'],
    },
  ];
}

/** Drives an IdentityProvider through the cases every single sign-on adapter must pass. */
export async function runIdentityProviderContract(t: ContractTest, opts: IdentityProviderKitOptions): Promise<void> {
  await runCommonCases(t, 'identity', opts);

  await t.test(`protocol is ${opts.protocol}`, async (t) => {
    await withAdapter(opts, (idp) => {
      t.equal(idp.protocol, opts.protocol, 'protocol');
      if (opts.protocol === 'saml')
        t.equal(typeof idp.serviceProviderMetadata, 'function', 'SAML adapters serve SP metadata');
    });
  });

  const bad = [
    ...defaultBadConnections(opts.protocol),
    ...(opts.badConnections ?? []).map((b) => ({ name: b.name, connection: b.connection, errors: [b.error] })),
  ];
  for (const b of bad) {
    await t.test(`testConnection() reports ${b.name}`, async (t) => {
      await withAdapter(opts, async (idp) => {
        try {
          const result = await idp.testConnection(b.connection);
          t.same(checkConnectionTestResult(result), [], 'ConnectionTestResult fits the contract');
          t.equal(result.ok, false, 'not ok');
          t.ok(
            result.error !== undefined && b.errors.includes(result.error),
            `error is ${b.errors.join(' | ')} (got ${result.error})`,
          );
        } catch (err) {
          t.fail(`testConnection threw ${describeError(err)}`);
        }
      });
    });
  }

  if (opts.protocol === 'saml') {
    await t.test('service provider metadata names the entity id and the ACS URL', async (t) => {
      await withAdapter(opts, async (idp) => {
        const conn = opts.connection ?? kitConnection('saml');
        const xml = (await idp.serviceProviderMetadata?.(conn)) ?? '';
        t.ok(xml.includes('EntityDescriptor'), 'an EntityDescriptor');
        t.ok(xml.includes(conn.serviceProvider.entityId), 'the entity id');
        t.ok(xml.includes(conn.serviceProvider.acsUrl), 'the ACS URL');
      });
    });
  }

  await t.test('a callback with nothing in it is refused with a SignInError', async (t) => {
    await withAdapter(opts, async (idp) => {
      const conn = opts.connection ?? kitConnection(opts.protocol);
      const input = { method: 'POST' as const, url: conn.serviceProvider.acsUrl, params: {} };
      await expectAdapterError(
        t,
        () => idp.completeSignIn(conn, input, { state: 'kit-state' }),
        SIGN_IN_ERROR_CODES,
        'empty callback',
      );
    });
  });

  const conn = opts.connection;
  if (!conn) return;

  await t.test('a working connection tests ok', async (t) => {
    await withAdapter(opts, async (idp) => {
      const result = await idp.testConnection(conn);
      t.same(checkConnectionTestResult(result), [], 'ConnectionTestResult fits the contract');
      t.equal(result.ok, true, `ok (error: ${result.error ?? 'none'})`);
    });
  });

  await t.test('a sign-in starts with the state in the IdP address and JSON-safe pending data', async (t) => {
    await withAdapter(opts, async (idp) => {
      const state = `st_kit${kitSuffix()}`;
      const { redirectUrl, pending } = await idp.startSignIn(conn, {
        redirectUri: conn.serviceProvider.redirectUri,
        state,
      });
      t.ok(isHttpUrl(redirectUrl), `an http(s) URL: ${redirectUrl}`);
      t.ok(
        isHttpUrl(redirectUrl) && urlParamValues(redirectUrl).includes(state),
        'the state travels in the URL (state or RelayState)',
      );
      t.ok(isDeepStrictEqual(JSON.parse(JSON.stringify(pending)), pending), 'pending survives JSON');
      const wrong = {
        method: 'GET' as const,
        url: `${conn.serviceProvider.redirectUri}?state=other&code=kit`,
        params: { state: 'other', RelayState: 'other', code: 'kit' },
      };
      await expectAdapterError(
        t,
        () => idp.completeSignIn(conn, wrong, pending),
        SIGN_IN_ERROR_CODES,
        'a callback with another state',
      );
    });
  });
}
