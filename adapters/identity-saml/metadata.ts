import { DOMParser } from '@xmldom/xmldom';
import { AdapterError, type IdpMetadata } from '../../core/contracts/index.js';
import { readCertificate, toPem } from '../../core/security/x509.js';

const MD = 'urn:oasis:names:tc:SAML:2.0:metadata';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';

const invalid = (message: string, details: Record<string, unknown> = {}) =>
  new AdapterError('invalid_metadata', message, { details });

/**
 * Reads an IdP's metadata: entity id, SSO URL (HTTP-Redirect preferred, else HTTP-POST) and the
 * signing certificate. DTDs are refused (no entity expansion), and so is a document with several
 * IdP descriptors (ambiguous).
 */
export function parseIdpMetadata(xml: string): IdpMetadata {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw invalid('metadata with a DTD is not accepted');
  const errors: string[] = [];
  const doc = new DOMParser({
    errorHandler: {
      warning: () => undefined,
      error: (msg: string) => void errors.push(msg),
      fatalError: (msg: string) => void errors.push(msg),
    },
  }).parseFromString(xml, 'text/xml');
  if (errors.length || !doc?.documentElement)
    throw invalid('the metadata is not well-formed XML', { errors: errors.slice(0, 3) });

  const idps = Array.from(doc.getElementsByTagNameNS(MD, 'IDPSSODescriptor'));
  if (idps.length !== 1)
    throw invalid(
      idps.length ? 'the metadata describes several identity providers' : 'the metadata has no IDPSSODescriptor',
    );
  const idp = idps[0];
  const entity = idp.parentNode as Element | null;
  const entityId = entity?.getAttribute?.('entityID') ?? '';
  if (!entityId) throw invalid('the metadata has no entityID');

  const services = Array.from(idp.getElementsByTagNameNS(MD, 'SingleSignOnService'));
  const pick = (binding: string) =>
    services.find((s) => s.getAttribute('Binding') === binding)?.getAttribute('Location') ?? null;
  const ssoUrl = pick(REDIRECT) ?? pick(POST);
  if (!ssoUrl || !/^https?:\/\//.test(ssoUrl))
    throw invalid('the metadata has no HTTP-Redirect or HTTP-POST SingleSignOnService');

  const keys = Array.from(idp.getElementsByTagNameNS(MD, 'KeyDescriptor')).filter((k) => {
    const use = k.getAttribute('use');
    return !use || use === 'signing';
  });
  const certText = keys
    .map((k) => k.getElementsByTagNameNS(DS, 'X509Certificate')[0]?.textContent ?? '')
    .find((t) => t.trim() !== '');
  if (!certText) throw invalid('the metadata has no signing certificate');
  const certificate = toPem(certText);
  if (!readCertificate(certificate)) throw invalid('the signing certificate in the metadata cannot be read');
  return { entityId, ssoUrl, certificate };
}
