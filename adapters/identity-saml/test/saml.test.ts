import t from 'tap';
import { adapterModule } from '../../../core/contracts/index.js';
import { makeKeyPair } from '../../../test/helpers/certs.js';
import { kitConnection, runIdentityProviderContract } from '../../../test/contracts/identity-provider.js';
import { SamlIdentityProvider } from '../saml-identity-provider.js';

/** The identity provider's signing certificate (PEM), current or one that ended in 2020. */
const cert = (expired: boolean): string => makeKeyPair(expired ? 'old' : 'idp', { expired }).cert;

t.test('identity-saml passes the IdentityProvider contract', async (t) => {
  const good = kitConnection('saml', {
    issuer: 'https://idp.kit.test',
    idpSsoUrl: 'https://idp.kit.test/sso',
    idpCert: cert(false),
  });
  await runIdentityProviderContract(t, {
    name: 'identity-saml',
    protocol: 'saml',
    create: () => new SamlIdentityProvider(SamlIdentityProvider.validateOptions({})),
    module: adapterModule('identity', SamlIdentityProvider),
    options: {
      valid: { clockToleranceSeconds: 60 },
      invalid: [{ options: { maxAssertionAgeSeconds: 1 }, key: 'maxAssertionAgeSeconds' }],
    },
    validateOptions: (o) => SamlIdentityProvider.validateOptions(o),
    connection: good,
    badConnections: [
      { name: 'an expired certificate', connection: { ...good, idpCert: cert(true) }, error: 'certificate_expired' },
    ],
  });
});

t.test('metadata import reads entity id, SSO URL and certificate, and refuses DTDs', (t) => {
  const idp = new SamlIdentityProvider(SamlIdentityProvider.validateOptions({}));
  const der = cert(false).replace(/-----[^-]+-----|\s/g, '');
  const xml = `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.test"><IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><KeyDescriptor use="encryption"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>bm90IGl0</X509Certificate></X509Data></KeyInfo></KeyDescriptor><KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${der}</X509Certificate></X509Data></KeyInfo></KeyDescriptor><SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.test/sso"/></IDPSSODescriptor></EntityDescriptor>`;
  const m = idp.importMetadata(xml);
  t.equal(m.entityId, 'https://idp.example.test');
  t.equal(m.ssoUrl, 'https://idp.example.test/sso');
  t.match(m.certificate, /^-----BEGIN CERTIFICATE-----/);
  t.throws(() => idp.importMetadata(`<!DOCTYPE x [<!ENTITY e "x">]>${xml}`), { code: 'invalid_metadata' });
  t.throws(() => idp.importMetadata('<nope'), { code: 'invalid_metadata' });
  t.end();
});
