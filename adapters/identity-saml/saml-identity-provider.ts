import { randomBytes } from 'node:crypto';
import Joi from 'joi';
import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import {
  AbstractIdentityProvider,
  SignInError,
  identityProviderOptionKeys,
  type ConnectionTestResult,
  type IdentityProviderOptions,
  type IdpMetadata,
  type SignInCallback,
  type SsoConnectionSettings,
  type SsoIdentity,
  type StartSignInInput,
  type StartSignInResult,
} from '../../core/contracts/index.js';
import { lazyImport } from '../../core/kernel/lazy.js';
import { readCertificate, toPem } from '../../core/security/x509.js';
import { parseIdpMetadata } from './metadata.js';

export interface SamlProviderOptions extends IdentityProviderOptions {
  /** Oldest assertion accepted, counted from its IssueInstant, whatever NotOnOrAfter says. */
  maxAssertionAgeSeconds: number;
}

/** @node-saml/node-saml and its XML signature stack load with the first SAML sign-in, not at every start (docs/boot.md). */
const loadSaml = lazyImport(() => import('@node-saml/node-saml'));

const EMAIL_FORMAT = 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress';
const EMAIL_ATTRIBUTES = [
  'email',
  'mail',
  'emailAddress',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress',
  'urn:oid:0.9.2342.19200300.100.1.3',
];
const NAME_ATTRIBUTES = [
  'displayName',
  'name',
  'cn',
  'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name',
  'urn:oid:2.16.840.1.113730.3.1.241',
];

/**
 * SAML 2.0 with @node-saml/node-saml: SP-initiated sign-in (HTTP-Redirect AuthnRequest), HTTP-POST
 * responses whose assertion must be signed by the connection's certificate (and nothing else),
 * audience = our entity id, InResponseTo = the request we sent, NotBefore/NotOnOrAfter with the
 * configured skew. The assertion id goes back to the caller, which accepts each one once.
 */
export class SamlIdentityProvider extends AbstractIdentityProvider<SamlProviderOptions> {
  static override identifier = 'identity-saml';
  static override optionsSchema = Joi.object<SamlProviderOptions>({
    ...identityProviderOptionKeys,
    clockToleranceSeconds: Joi.number().integer().min(0).max(600).default(120),
    maxAssertionAgeSeconds: Joi.number().integer().min(30).max(86_400).default(600),
  });

  readonly protocol = 'saml' as const;

  testConnection(conn: SsoConnectionSettings): Promise<ConnectionTestResult> {
    // In the executor, a throw (a date that cannot be written) rejects, as it did from an async method.
    return new Promise((resolve) => resolve(this.checkConnection(conn)));
  }

  private checkConnection(conn: SsoConnectionSettings): ConnectionTestResult {
    const cert = readCertificate(conn.idpCert);
    if (!cert)
      return { ok: false, error: 'certificate_invalid', details: { message: 'the IdP certificate cannot be read' } };
    const details = {
      subject: cert.subject,
      issuer: cert.issuer,
      valid_from: cert.validFrom.toISOString(),
      valid_to: cert.validTo.toISOString(),
      fingerprint256: cert.fingerprint256,
      sso_url: conn.idpSsoUrl,
      entity_id: conn.issuer,
    };
    const now = Date.now();
    if (cert.validTo.getTime() <= now) return { ok: false, error: 'certificate_expired', details };
    if (cert.validFrom.getTime() > now)
      return {
        ok: false,
        error: 'certificate_invalid',
        details: { ...details, message: 'the certificate is not valid yet' },
      };
    if (!conn.idpSsoUrl)
      return {
        ok: false,
        error: 'certificate_invalid',
        details: { ...details, message: 'the connection has no IdP sign-in URL' },
      };
    return { ok: true, details };
  }

  async startSignIn(conn: SsoConnectionSettings, input: StartSignInInput): Promise<StartSignInResult> {
    if (!conn.idpSsoUrl) throw new SignInError('invalid_response', 'the connection has no IdP sign-in URL');
    let requestId: string | null = null;
    let requestIssuedAt: string | null = null;
    const cache: CacheProvider = {
      saveAsync: (key, value) => {
        requestId = key;
        requestIssuedAt = value;
        return Promise.resolve({ value, createdAt: Date.now() });
      },
      getAsync: () => Promise.resolve(null),
      removeAsync: () => Promise.resolve(null),
    };
    const saml = await this.saml(conn, cache, conn.idpCert ?? 'unused-for-requests');
    const redirectUrl = await saml.getAuthorizeUrlAsync(input.state, undefined, {});
    return { redirectUrl, pending: { state: input.state, requestId, requestIssuedAt } };
  }

  async completeSignIn(
    conn: SsoConnectionSettings,
    input: SignInCallback,
    pending: Record<string, unknown>,
  ): Promise<SsoIdentity> {
    const response = input.params.SAMLResponse;
    if (!response) throw new SignInError('invalid_response', 'the callback carries no SAMLResponse');
    this.assertState(input.params.RelayState, pending);
    const requestId = typeof pending.requestId === 'string' ? pending.requestId : null;
    const issuedAt = typeof pending.requestIssuedAt === 'string' ? pending.requestIssuedAt : new Date().toISOString();
    if (!requestId) throw new SignInError('state_mismatch', 'no sign-in request was sent');

    const cert = readCertificate(conn.idpCert);
    if (!cert) throw new SignInError('signature_invalid', 'the connection has no usable IdP certificate');
    if (cert.validTo.getTime() <= Date.now())
      throw new SignInError('expired', 'the IdP certificate has expired', {
        details: { reason: 'certificate_expired' },
      });

    // InResponseTo must name the request this browser's sign-in sent, and nothing else.
    const cache: CacheProvider = {
      saveAsync: () => Promise.resolve(null),
      getAsync: (key) => Promise.resolve(key === requestId ? issuedAt : null),
      removeAsync: () => Promise.resolve(null),
    };
    let profile: Profile | null;
    try {
      ({ profile } = await (
        await this.saml(conn, cache, toPem(conn.idpCert!))
      ).validatePostResponseAsync({
        SAMLResponse: response,
      }));
    } catch (err) {
      throw toSignInError(err);
    }
    if (!profile) throw new SignInError('invalid_response', 'the response carries no assertion');
    return this.toIdentity(profile);
  }

  async serviceProviderMetadata(conn: SsoConnectionSettings): Promise<string> {
    const { generateServiceProviderMetadata } = await loadSaml();
    return generateServiceProviderMetadata({
      issuer: conn.serviceProvider.entityId,
      callbackUrl: conn.serviceProvider.acsUrl,
      identifierFormat: EMAIL_FORMAT,
      wantAssertionsSigned: true,
      generateUniqueId: newRequestId,
    });
  }

  importMetadata(xml: string): IdpMetadata {
    return parseIdpMetadata(xml);
  }

  private async saml(conn: SsoConnectionSettings, cacheProvider: CacheProvider, idpCert: string): Promise<SAML> {
    const { SAML, ValidateInResponseTo } = await loadSaml();
    return new SAML({
      idpCert,
      issuer: conn.serviceProvider.entityId,
      callbackUrl: conn.serviceProvider.acsUrl,
      entryPoint: conn.idpSsoUrl ?? undefined,
      audience: conn.serviceProvider.entityId,
      idpIssuer: conn.issuer ?? undefined,
      identifierFormat: EMAIL_FORMAT,
      wantAssertionsSigned: true,
      wantAuthnResponseSigned: false,
      acceptedClockSkewMs: (this.options.clockToleranceSeconds ?? 120) * 1000,
      maxAssertionAgeMs: this.options.maxAssertionAgeSeconds * 1000,
      validateInResponseTo: ValidateInResponseTo.always,
      requestIdExpirationPeriodMs: 15 * 60_000,
      cacheProvider,
      disableRequestedAuthnContext: true,
      generateUniqueId: newRequestId,
    });
  }

  private toIdentity(profile: Profile): SsoIdentity {
    const attrs = {
      ...(profile.attributes as Record<string, unknown> | undefined),
      ...(profile as unknown as Record<string, unknown>),
    };
    const first = (names: string[]) => {
      for (const n of names) {
        const v = attrs[n];
        const s: unknown = Array.isArray(v) ? v[0] : v;
        if (typeof s === 'string' && s.trim()) return s.trim();
      }
      return null;
    };
    const email = first(EMAIL_ATTRIBUTES) ?? (/^[^\s@]+@[^\s@]+$/.test(profile.nameID ?? '') ? profile.nameID : null);
    const identity = this.identity(profile.nameID, email, true, first(NAME_ATTRIBUTES));
    const assertion = (
      profile.getAssertion?.() as
        { Assertion?: { $?: { ID?: string }; Conditions?: Array<{ $?: { NotOnOrAfter?: string } }> } } | undefined
    )?.Assertion;
    const id = assertion?.$?.ID;
    if (!id) throw new SignInError('invalid_response', 'the assertion has no ID');
    const notOnOrAfter = assertion?.Conditions?.[0]?.$?.NotOnOrAfter;
    const expires =
      notOnOrAfter && !Number.isNaN(Date.parse(notOnOrAfter))
        ? new Date(notOnOrAfter)
        : new Date(Date.now() + this.options.maxAssertionAgeSeconds * 1000);
    return { ...identity, assertion: { id, expiresAt: expires.toISOString() } };
  }
}

/** SAML ids must not start with a digit. */
const newRequestId = (): string => `_${randomBytes(20).toString('hex')}`;

/** node-saml's error messages → the contract's sign-in error codes. */
function toSignInError(err: unknown): SignInError {
  if (err instanceof SignInError) return err;
  const message = err instanceof Error ? err.message : String(err);
  const opts = { cause: err, details: { reason: message.slice(0, 200) } };
  if (/signature/i.test(message))
    return new SignInError('signature_invalid', "the response is not signed by the connection's certificate", opts);
  if (/audience/i.test(message))
    return new SignInError('audience_mismatch', 'the assertion is meant for another service', opts);
  if (/expired|NotBefore|NotOnOrAfter|too old|max.*age|No valid subject confirmation/i.test(message))
    return new SignInError('expired', 'the assertion is expired or not yet valid', opts);
  if (/InResponseTo/i.test(message))
    return new SignInError('state_mismatch', 'the response answers no request of this sign-in', opts);
  if (/status/i.test(message)) return new SignInError('idp_error', 'the identity provider refused the sign-in', opts);
  return new SignInError('invalid_response', 'the response cannot be read', opts);
}
