import Joi from 'joi';
import { AbstractAdapter, AdapterError, type AdapterErrorOptions } from './adapter.js';

export type SsoProtocol = 'oidc' | 'saml';

/** Why a connection test failed (spec: the test operation's `error`). */
export type SsoTestError =
  | 'discovery_failed'
  | 'issuer_mismatch'
  | 'insecure_issuer'
  | 'blocked_address'
  | 'certificate_invalid'
  | 'certificate_expired';
export const SSO_TEST_ERRORS: readonly SsoTestError[] = [
  'discovery_failed',
  'issuer_mismatch',
  'insecure_issuer',
  'blocked_address',
  'certificate_invalid',
  'certificate_expired',
];

/** The service's own addresses for one connection (spec: SsoConnection.service_provider). */
export interface ServiceProviderInfo {
  /** OIDC redirect URI. */
  redirectUri: string;
  /** SAML entity id of the service. */
  entityId: string;
  /** SAML assertion consumer service URL. */
  acsUrl: string;
  metadataUrl: string;
}

/** One single sign-on connection with its secrets decrypted, as the sso plugin hands it over. */
export interface SsoConnectionSettings {
  id: string;
  protocol: SsoProtocol;
  /** OIDC issuer; SAML IdP entity id. */
  issuer: string | null;
  clientId: string | null;
  clientSecret: string | null;
  /** SAML IdP single sign-on URL. */
  idpSsoUrl: string | null;
  /** SAML IdP signing certificate (PEM or base64 DER). */
  idpCert: string | null;
  idpMetadataXml: string | null;
  serviceProvider: ServiceProviderInfo;
}

export interface ConnectionTestResult {
  ok: boolean;
  /** What was checked: discovery endpoints, certificate subject and expiry, … */
  details: Record<string, unknown>;
  /** Present when `ok` is false. */
  error?: SsoTestError;
}

export interface StartSignInInput {
  redirectUri: string;
  /** Opaque value the callback must carry back (OIDC `state`, SAML `RelayState`). */
  state: string;
}

export interface StartSignInResult {
  /** Where the browser goes (the IdP's authorization or SSO URL). */
  redirectUrl: string;
  /**
   * What `completeSignIn` needs again (nonce, PKCE verifier, SAML request id): JSON-safe, kept
   * server side with the state, never sent to the browser.
   */
  pending: Record<string, unknown>;
}

/** The callback request, as the route received it. */
export interface SignInCallback {
  method: 'GET' | 'POST';
  /** Full callback URL including the query (OIDC). */
  url: string;
  /** Query parameters (GET) or form fields (POST, e.g. SAMLResponse and RelayState). */
  params: Record<string, string>;
}

/** The person the IdP vouches for. */
export interface SsoIdentity {
  /** The IdP's stable subject (OIDC `sub`, SAML NameID). */
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
  /**
   * SAML: the validated assertion's ID and the end of its validity. The caller accepts each id
   * once (replay protection) and may forget it after `expiresAt`.
   */
  assertion?: { id: string; expiresAt: string };
}

/** What an IdP's metadata document says (SAML metadata import). */
export interface IdpMetadata {
  /** The IdP's entity id. */
  entityId: string;
  /** Its single sign-on URL (HTTP-Redirect binding preferred, else HTTP-POST). */
  ssoUrl: string;
  /** Its signing certificate, PEM. */
  certificate: string;
}

export type SignInErrorCode =
  | 'state_mismatch'
  | 'invalid_response'
  | 'signature_invalid'
  | 'expired'
  | 'audience_mismatch'
  | 'email_missing'
  | 'idp_error';
export const SIGN_IN_ERROR_CODES: readonly SignInErrorCode[] = [
  'state_mismatch',
  'invalid_response',
  'signature_invalid',
  'expired',
  'audience_mismatch',
  'email_missing',
  'idp_error',
];

/** A sign-in callback the provider refused; the route answers the sign-in page with the code. */
export class SignInError extends AdapterError {
  override name = 'SignInError';
  constructor(code: SignInErrorCode, message: string, opts: AdapterErrorOptions = {}) {
    super(code, message, opts);
  }
}

/** Single sign-on with one protocol. Several are active (`adapters.identity`), one per protocol. */
export interface IdentityProvider {
  /**
   * Name of the adapter in config and container keys.
   *
   * @example idp.identifier // 'identity-oidc'
   */
  readonly identifier: string;

  /**
   * The protocol it speaks (SsoConnection.protocol).
   *
   * @example idp.protocol // 'saml'
   */
  readonly protocol: SsoProtocol;

  /**
   * Checks a connection: OIDC discovery (https issuer, matching issuer, public address) or the
   * SAML certificate (parseable, not expired). Failures are answers, not exceptions.
   *
   * @example await idp.testConnection(conn) // { ok: false, error: 'issuer_mismatch', details: { expected, found } }
   */
  testConnection(conn: SsoConnectionSettings): Promise<ConnectionTestResult>;

  /**
   * Starts a sign-in: the IdP address and what to keep until the callback.
   *
   * @example const { redirectUrl, pending } = await idp.startSignIn(conn, { redirectUri, state })
   */
  startSignIn(conn: SsoConnectionSettings, input: StartSignInInput): Promise<StartSignInResult>;

  /**
   * Validates the callback against what `startSignIn` kept and returns the identity. Throws
   * SignInError (state, signature, expiry, audience, missing email).
   *
   * @example const { subject, email, emailVerified } = await idp.completeSignIn(conn, callback, pending)
   */
  completeSignIn(
    conn: SsoConnectionSettings,
    input: SignInCallback,
    pending: Record<string, unknown>,
  ): Promise<SsoIdentity>;

  /**
   * The service provider metadata XML (SAML only; `GET /v1/auth/sso/saml/{id}/metadata`).
   *
   * @example idp.serviceProviderMetadata?.(conn) // '<EntityDescriptor entityID="…">…'
   */
  serviceProviderMetadata?(conn: SsoConnectionSettings): string | Promise<string>;

  /**
   * Reads an IdP metadata XML document (SAML only). Throws an AdapterError `invalid_metadata`
   * naming what is missing.
   *
   * @example idp.importMetadata?.(xml) // { entityId: 'https://idp…', ssoUrl: 'https://idp…/sso', certificate: '-----BEGIN CERTIFICATE-----…' }
   */
  importMetadata?(xml: string): IdpMetadata;
}

/** Options every identity provider accepts. */
export interface IdentityProviderOptions {
  /** Clock skew allowed on token and assertion times. */
  clockToleranceSeconds?: number;
  /** Timeout of discovery and token calls. */
  requestTimeoutMs?: number;
  /** Allow an http issuer (tests against a local IdP only). */
  allowInsecureIssuer?: boolean;
}

export const identityProviderOptionKeys: Joi.PartialSchemaMap<IdentityProviderOptions> = {
  clockToleranceSeconds: Joi.number().integer().min(0).max(600).default(60),
  requestTimeoutMs: Joi.number().integer().min(100).max(60_000).default(10_000),
  allowInsecureIssuer: Joi.boolean().default(false),
};

export const identityProviderOptionsSchema = Joi.object<IdentityProviderOptions>(identityProviderOptionKeys);

/** Base of identity providers: options and the checks of the state and the email every protocol needs. */
export abstract class AbstractIdentityProvider<O extends IdentityProviderOptions = IdentityProviderOptions>
  extends AbstractAdapter<O>
  implements IdentityProvider
{
  static override optionsSchema: Joi.ObjectSchema<IdentityProviderOptions> = identityProviderOptionsSchema;

  abstract readonly protocol: SsoProtocol;
  abstract testConnection(conn: SsoConnectionSettings): Promise<ConnectionTestResult>;
  abstract startSignIn(conn: SsoConnectionSettings, input: StartSignInInput): Promise<StartSignInResult>;
  abstract completeSignIn(
    conn: SsoConnectionSettings,
    input: SignInCallback,
    pending: Record<string, unknown>,
  ): Promise<SsoIdentity>;

  /** Throws `state_mismatch` unless the callback's state equals the one kept. */
  protected assertState(received: string | undefined, pending: Record<string, unknown>): void {
    if (typeof pending.state !== 'string' || received !== pending.state) {
      throw new SignInError('state_mismatch', 'the sign-in state does not match');
    }
  }

  /** Builds the identity, refusing one without a usable email. */
  protected identity(subject: unknown, email: unknown, emailVerified: unknown, name: unknown): SsoIdentity {
    if (typeof subject !== 'string' || subject === '')
      throw new SignInError('invalid_response', 'the identity has no subject');
    if (typeof email !== 'string' || !/^[^\s@]+@[^\s@]+$/.test(email)) {
      throw new SignInError('email_missing', 'the identity provider sent no email address');
    }
    return {
      subject,
      email: email.toLowerCase(),
      emailVerified: emailVerified === true,
      name: typeof name === 'string' ? name : null,
    };
  }
}
