import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { signUp } from '../../../test/helpers/accounts.js';
import { makeKeyPair } from '../../../test/helpers/certs.js';
import {
  IDP_ENTITY_ID,
  IDP_SSO_URL,
  assertionXml,
  readAuthnRequest,
  responseXml,
  signAssertion,
  signedResponse,
  type AssertionOptions,
} from './helpers/saml-idp.js';
import { cookieFrom, json, sessionCount, setPlan, ssoConnection, verifiedDomain } from './helpers/fixtures.js';

const BASE = 'http://localhost:3000';

t.test('SAML: signed assertions sign people in; every forged, stale or misdirected one is refused', async (t) => {
  const app = await startTestApp(t);
  const idp = makeKeyPair('idp.saml.test');
  const intruder = makeKeyPair('intruder.test');
  const owner = await signUp(app, { email: 'owner@globex.test' });
  await setPlan(app, owner.organization.id);
  await verifiedDomain(app, owner.organization.id, 'globex.test');

  const created = await app.server.inject({
    method: 'POST',
    url: '/v1/security/sso/connections',
    ...owner.auth,
    payload: {
      protocol: 'saml',
      name: 'Globex SAML',
      entity_id: IDP_ENTITY_ID,
      sso_url: IDP_SSO_URL,
      certificate: idp.cert,
      domains: ['globex.test'],
      jit_enabled: true,
      default_role: 'admin',
    },
  });
  t.equal(created.statusCode, 201, created.payload);
  const conn = json<{
    id: string;
    certificate_expires_at: string;
    service_provider: { entity_id: string; acs_url: string; metadata_url: string; login_url: string };
  }>(created);
  const connection = ssoConnection(app, owner, conn.id);
  t.ok(Date.parse(conn.certificate_expires_at) > Date.now(), 'certificate_expires_at from the certificate');
  const sp = conn.service_provider;
  const acsPath = sp.acs_url.slice(BASE.length);

  const metadata = await app.server.inject({ method: 'GET', url: sp.metadata_url.slice(BASE.length) });
  t.equal(metadata.statusCode, 200);
  t.match(metadata.headers['content-type'], /samlmetadata\+xml/);
  t.ok(
    metadata.payload.includes(sp.entity_id) && metadata.payload.includes(sp.acs_url),
    'SP metadata names entity id and ACS',
  );

  const test = await connection.test();
  t.same([test.ok, test.protocol], [true, 'saml']);

  const start = async (email = 'sam@globex.test') => {
    const res = await app.server.inject({
      method: 'POST',
      url: '/v1/auth/sso/start',
      payload: { email, redirect_to: '/approvals' },
    });
    t.equal(res.statusCode, 200, res.payload);
    const req = readAuthnRequest(json<{ redirect_url: string }>(res).redirect_url);
    t.equal(req.acs, sp.acs_url, 'the AuthnRequest names our ACS');
    return { ...req, browser: cookieFrom(res, 'pw_sso')! };
  };
  const options = (req: { id: string }, over: Partial<AssertionOptions> = {}): AssertionOptions => ({
    inResponseTo: req.id,
    audience: sp.entity_id,
    recipient: sp.acs_url,
    email: 'sam@globex.test',
    ...over,
  });
  const post = (SAMLResponse: string, RelayState?: string) =>
    app.server.inject({
      method: 'POST',
      url: acsPath,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ SAMLResponse, ...(RelayState !== undefined ? { RelayState } : {}) }).toString(),
    });

  let validResponse = '';
  let validRelay = '';
  await t.test('a valid response completes in the browser that started it', async (t) => {
    const req = await start();
    validResponse = signedResponse(options(req), idp);
    validRelay = req.relayState;
    const acs = await post(validResponse, req.relayState);
    t.equal(acs.statusCode, 303, acs.payload);
    const location = String(acs.headers.location);
    t.match(location, /^http:\/\/localhost:3000\/v1\/auth\/sso\/complete\?token=/);
    const completePath = location.slice(BASE.length);

    const elsewhere = await app.server.inject({
      method: 'GET',
      url: completePath,
      headers: { cookie: 'pw_sso=pwb_other-browser' },
    });
    t.equal(elsewhere.headers.location, `${BASE}/login?sso_error=state_mismatch`, 'another browser cannot complete it');
    t.notOk(cookieFrom(elsewhere, 'pw_session'));

    const done = await app.server.inject({
      method: 'GET',
      url: completePath,
      headers: { cookie: `pw_sso=${req.browser}` },
    });
    t.equal(done.statusCode, 302);
    t.equal(done.headers.location, `${BASE}/approvals`);
    const session = cookieFrom(done, 'pw_session');
    t.ok(session, 'signed in');
    const me = json<{ user: { email: string; role: string; name: string }; session: { sso: boolean } }>(
      await app.server.inject({ method: 'GET', url: '/v1/auth/me', headers: { cookie: `pw_session=${session}` } }),
    );
    t.same([me.user.email, me.user.role, me.user.name, me.session.sso], ['sam@globex.test', 'admin', 'Sam Saml', true]);

    const twice = await app.server.inject({
      method: 'GET',
      url: completePath,
      headers: { cookie: `pw_sso=${req.browser}` },
    });
    t.equal(twice.headers.location, `${BASE}/login?sso_error=state_mismatch`, 'the completion token works once');
  });

  const refused = async (
    t: import('tap').Test,
    name: string,
    make: (req: Awaited<ReturnType<typeof start>>) => string,
    code: string,
  ) => {
    await t.test(name, async (t) => {
      const req = await start();
      const before = await sessionCount(app);
      const res = await post(make(req), req.relayState);
      t.equal(res.statusCode, 303);
      t.equal(res.headers.location, `${BASE}/login?sso_error=${code}`, `refused with ${code}`);
      t.equal(await sessionCount(app), before, 'no session opened');
    });
  };

  await refused(
    t,
    'signed with another certificate',
    (req) => signedResponse(options(req), intruder),
    'signature_invalid',
  );
  await refused(
    t,
    'tampered after signing',
    (req) => {
      const xml = Buffer.from(signedResponse(options(req), idp), 'base64')
        .toString('utf8')
        .replaceAll('sam@globex.test', 'owner@globex.test');
      return Buffer.from(xml).toString('base64');
    },
    'signature_invalid',
  );
  await refused(
    t,
    'signature wrapping: a second, unsigned assertion',
    (req) => {
      const good = signAssertion(assertionXml(options(req)), idp);
      const evil = assertionXml(options(req, { email: 'owner@globex.test', assertionId: '_evil' }));
      return Buffer.from(responseXml(options(req), good, evil)).toString('base64');
    },
    'signature_invalid',
  );
  await refused(
    t,
    'expired',
    (req) => signedResponse(options(req, { notBefore: -3600, notOnOrAfter: -1800, issueInstant: -3600 }), idp),
    'expired',
  );
  await refused(
    t,
    'meant for another service',
    (req) => signedResponse(options(req, { audience: 'https://other-sp.test/metadata' }), idp),
    'audience_mismatch',
  );
  await refused(
    t,
    'answering another request',
    (req) => signedResponse(options(req, { inResponseTo: '_not-our-request' }), idp),
    'state_mismatch',
  );

  await t.test('a replayed assertion id is refused', async (t) => {
    const before = await sessionCount(app);
    const same = await post(validResponse, validRelay);
    t.equal(same.headers.location, `${BASE}/login?sso_error=state_mismatch`, 'the same post again');
    const first = await start();
    const once = await post(
      signedResponse(options(first, { assertionId: '_fixed-assertion-id' }), idp),
      first.relayState,
    );
    t.match(String(once.headers.location), /\/v1\/auth\/sso\/complete\?token=/);
    const second = await start();
    const replay = await post(
      signedResponse(options(second, { assertionId: '_fixed-assertion-id' }), idp),
      second.relayState,
    );
    t.equal(
      replay.headers.location,
      `${BASE}/login?sso_error=assertion_replayed`,
      'the same assertion id for a new request',
    );
    t.equal(await sessionCount(app), before, 'no session opened');
  });

  await t.test('IdP-initiated: the app tile and unsolicited responses land on the confirmation page', async (t) => {
    const tile = await app.server.inject({ method: 'GET', url: sp.login_url.slice(BASE.length) });
    t.equal(tile.statusCode, 302);
    t.equal(tile.headers.location, `${BASE}/sso/confirm?connection=${conn.id}`);
    const unsolicited = await post(
      signedResponse(
        { inResponseTo: '', audience: sp.entity_id, recipient: sp.acs_url, email: 'sam@globex.test' },
        idp,
      ),
    );
    t.equal(unsolicited.headers.location, `${BASE}/sso/confirm?connection=${conn.id}`, 'not trusted, sent to confirm');
    const info = json<{ name: string; organization: { id: string } }>(
      await app.server.inject({ method: 'GET', url: `/v1/auth/sso/connections/${conn.id}` }),
    );
    t.same([info.name, info.organization.id], ['Globex SAML', owner.organization.id]);
    const confirmed = await app.server.inject({
      method: 'POST',
      url: `/v1/auth/sso/connections/${conn.id}/start`,
      payload: {},
    });
    t.equal(confirmed.statusCode, 200);
    t.ok(
      json<{ redirect_url: string }>(confirmed).redirect_url.startsWith(IDP_SSO_URL),
      'an SP-initiated sign-in starts',
    );
    const unknown = await app.server.inject({ method: 'GET', url: '/v1/auth/sso/login?connection=ssoc_nope' });
    t.equal(unknown.headers.location, `${BASE}/login?sso_error=connection_not_found`);
  });

  await t.test('metadata import and certificate checks', async (t) => {
    const der = idp.cert.replace(/-----[^-]+-----|\s/g, '');
    const xml = `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://idp2.saml.test"><md:IDPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${der}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://idp2.saml.test/post"/><md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://idp2.saml.test/redirect"/></md:IDPSSODescriptor></md:EntityDescriptor>`;
    const res = await connection.update({ metadata_xml: xml });
    t.equal(res.statusCode, 200, res.payload);
    const c = json<{ issuer: string; idp_sso_url: string; has_idp_metadata: boolean; idp_cert: string }>(res);
    t.same(
      [c.issuer, c.idp_sso_url, c.has_idp_metadata],
      ['https://idp2.saml.test', 'https://idp2.saml.test/redirect', true],
    );
    t.match(c.idp_cert, /BEGIN CERTIFICATE/);
    const bad = await connection.update({ metadata_xml: '<x/>' });
    t.equal(bad.statusCode, 400);
    const oidcField = await connection.update({ client_secret: 'nope' });
    t.equal(oidcField.statusCode, 400, 'OIDC settings do not apply to SAML');

    const expired = makeKeyPair('old.test', { expired: true });
    await connection.update({ certificate: expired.cert });
    const test = await connection.test();
    t.same([test.ok, test.error], [false, 'certificate_expired']);
    const garbage = await connection.update({ certificate: 'not a certificate' });
    t.equal(garbage.statusCode, 400);
  });
});
