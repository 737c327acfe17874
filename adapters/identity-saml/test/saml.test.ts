import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { adapterModule } from '../../../core/contracts/index.js';
import { kitConnection, runIdentityProviderContract } from '../../../test/contracts/identity-provider.js';
import { SamlIdentityProvider } from '../saml-identity-provider.js';

function cert(expired: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'pw-saml-'));
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    if (!expired)
      run([
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        'k.pem',
        '-out',
        'c.pem',
        '-days',
        '30',
        '-subj',
        '/CN=idp',
      ]);
    else {
      run(['req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'r.csr', '-subj', '/CN=old']);
      writeFileSync(join(dir, 'index.txt'), '');
      writeFileSync(join(dir, 'serial'), '01\n');
      writeFileSync(
        join(dir, 'ca.cnf'),
        `[ca]\ndefault_ca=CA\n[CA]\ndatabase=${dir}/index.txt\nnew_certs_dir=${dir}\nserial=${dir}/serial\ndefault_md=sha256\npolicy=p\n[p]\ncommonName=supplied\n`,
      );
      run([
        'ca',
        '-batch',
        '-selfsign',
        '-config',
        'ca.cnf',
        '-keyfile',
        'k.pem',
        '-in',
        'r.csr',
        '-startdate',
        '20200101000000Z',
        '-enddate',
        '20200102000000Z',
        '-out',
        'c.pem',
      ]);
    }
    const pem = readFileSync(join(dir, 'c.pem'), 'utf8');
    return pem.slice(pem.indexOf('-----BEGIN CERTIFICATE-----'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

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

t.test('metadata import reads entity id, SSO URL and certificate, and refuses DTDs', async (t) => {
  const idp = new SamlIdentityProvider(SamlIdentityProvider.validateOptions({}));
  const der = cert(false).replace(/-----[^-]+-----|\s/g, '');
  const xml = `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://idp.example.test"><IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><KeyDescriptor use="encryption"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>bm90IGl0</X509Certificate></X509Data></KeyInfo></KeyDescriptor><KeyDescriptor use="signing"><KeyInfo xmlns="http://www.w3.org/2000/09/xmldsig#"><X509Data><X509Certificate>${der}</X509Certificate></X509Data></KeyInfo></KeyDescriptor><SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp.example.test/sso"/></IDPSSODescriptor></EntityDescriptor>`;
  const m = idp.importMetadata(xml);
  t.equal(m.entityId, 'https://idp.example.test');
  t.equal(m.ssoUrl, 'https://idp.example.test/sso');
  t.match(m.certificate, /^-----BEGIN CERTIFICATE-----/);
  t.throws(() => idp.importMetadata(`<!DOCTYPE x [<!ENTITY e "x">]>${xml}`), { code: 'invalid_metadata' });
  t.throws(() => idp.importMetadata('<nope'), { code: 'invalid_metadata' });
});
