import { randomBytes } from 'node:crypto';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';
import type { KeyPair } from './certs.js';

export const IDP_ENTITY_ID = 'https://idp.saml.test/metadata';
export const IDP_SSO_URL = 'https://idp.saml.test/sso';

/** The AuthnRequest id inside a redirect URL's SAMLRequest, and its RelayState. */
export function readAuthnRequest(redirectUrl: string): { id: string; relayState: string; acs: string | null } {
  const url = new URL(redirectUrl);
  const xml = inflateRawSync(Buffer.from(url.searchParams.get('SAMLRequest') ?? '', 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1] ?? '';
  const acs = /AssertionConsumerServiceURL="([^"]+)"/.exec(xml)?.[1] ?? null;
  return { id, relayState: url.searchParams.get('RelayState') ?? '', acs };
}

export interface AssertionOptions {
  inResponseTo: string;
  audience: string;
  recipient: string;
  email: string;
  name?: string;
  issuer?: string;
  assertionId?: string;
  /** Seconds from now. */
  notBefore?: number;
  notOnOrAfter?: number;
  issueInstant?: number;
}

const at = (seconds: number) => new Date(Date.now() + seconds * 1000).toISOString();

function assertionXml(o: AssertionOptions): string {
  const id = o.assertionId ?? `_a${randomBytes(16).toString('hex')}`;
  const issuer = o.issuer ?? IDP_ENTITY_ID;
  return (
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${at(o.issueInstant ?? 0)}">` +
    `<saml:Issuer>${issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${o.email}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${o.inResponseTo}" NotOnOrAfter="${at(o.notOnOrAfter ?? 300)}" Recipient="${o.recipient}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${at(o.notBefore ?? -60)}" NotOnOrAfter="${at(o.notOnOrAfter ?? 300)}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${at(0)}" SessionIndex="_s${randomBytes(6).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${o.email}</saml:AttributeValue></saml:Attribute>` +
    `<saml:Attribute Name="displayName"><saml:AttributeValue>${o.name ?? 'Sam Saml'}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
    `</saml:Assertion>`
  );
}

/** Signs the (first) Assertion of a document with xml-crypto: enveloped, exclusive c14n, RSA-SHA256. */
export function signAssertion(xml: string, keys: KeyPair): string {
  const sig = new SignedXml({
    privateKey: keys.key,
    publicCert: keys.cert,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
  });
  sig.computeSignature(xml, {
    location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
  });
  return sig.getSignedXml();
}

/** A Response around an assertion; `signedAssertion` is inserted as given. */
export function responseXml(o: AssertionOptions, signedAssertion: string, extraBefore = ''): string {
  return (
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${at(0)}" Destination="${o.recipient}" InResponseTo="${o.inResponseTo}">` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    extraBefore +
    signedAssertion +
    `</samlp:Response>`
  );
}

/** A base64 SAMLResponse whose assertion is signed by `keys`. */
export function signedResponse(o: AssertionOptions, keys: KeyPair): string {
  const assertion = signAssertion(assertionXml(o), keys);
  return Buffer.from(responseXml(o, assertion)).toString('base64');
}

export { assertionXml };
