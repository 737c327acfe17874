/** X.509 helpers: certificates as customers paste them (PEM or bare base64 DER, as SAML metadata carries them). */
import { X509Certificate } from 'node:crypto';

/** A certificate as PEM, from PEM or bare base64 DER (as metadata documents carry it). */
export function toPem(cert: string): string {
  const trimmed = cert.trim();
  if (trimmed.includes('-----BEGIN CERTIFICATE-----')) return trimmed;
  const body = trimmed.replace(/\s+/g, '');
  const lines = body.match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----`;
}

export interface CertificateInfo {
  subject: string;
  issuer: string;
  validFrom: Date;
  validTo: Date;
  fingerprint256: string;
}

/** Parses a certificate; null when it is not one. */
export function readCertificate(cert: string | null | undefined): CertificateInfo | null {
  if (!cert || !cert.trim()) return null;
  try {
    const x = new X509Certificate(toPem(cert));
    return {
      subject: x.subject,
      issuer: x.issuer,
      validFrom: new Date(x.validFrom),
      validTo: new Date(x.validTo),
      fingerprint256: x.fingerprint256,
    };
  } catch {
    return null;
  }
}
