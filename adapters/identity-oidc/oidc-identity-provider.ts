import Joi from 'joi';
import type * as Oidc from 'openid-client';
import {
  AbstractIdentityProvider,
  SignInError,
  identityProviderOptionKeys,
  type AdapterDeps,
  type ConnectionTestResult,
  type IdentityProviderOptions,
  type SignInCallback,
  type SsoConnectionSettings,
  type SsoIdentity,
  type StartSignInInput,
  type StartSignInResult,
} from '../../core/contracts/index.js';
import { SafeFetchError, createSafeFetch, type SafeFetch } from '../../core/security/safe-fetch.js';
import { lazyImport } from '../../core/kernel/lazy.js';

export interface OidcOptions extends IdentityProviderOptions {
  /** Scopes asked for; `openid` is always included. */
  scopes: string;
  /** Largest discovery, token or key answer. */
  maxResponseBytes: number;
}

interface Discovered {
  metadata: Oidc.ServerMetadata;
  at: number;
}

/** Failures of discovery, as the connection test reports them. */
class DiscoveryError extends Error {
  constructor(
    readonly code: 'discovery_failed' | 'issuer_mismatch' | 'insecure_issuer' | 'blocked_address',
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

const DISCOVERY_TTL_MS = 5 * 60_000;

/** openid-client loads with the first sign-in or test of an OIDC connection, not at every start (docs/boot.md). */
const loadOidc = lazyImport(() => import('openid-client'));

/**
 * OpenID Connect with openid-client: authorization code flow with PKCE (S256), state and nonce,
 * ID token validation by openid-client. Every HTTP call (discovery, token, JWKS, userinfo) goes
 * through the SSRF-guarded fetch, pinned to the address it checked.
 */
export class OidcIdentityProvider extends AbstractIdentityProvider<OidcOptions> {
  static override identifier = 'identity-oidc';
  static override optionsSchema = Joi.object<OidcOptions>({
    ...identityProviderOptionKeys,
    scopes: Joi.string()
      .pattern(/^[\x21-\x7e]+( [\x21-\x7e]+)*$/)
      .default('openid email profile'),
    maxResponseBytes: Joi.number()
      .integer()
      .min(1024)
      .max(10 * 1024 * 1024)
      .default(512 * 1024),
  });

  readonly protocol = 'oidc' as const;
  private readonly fetch: SafeFetch;
  private readonly allowHttp: boolean;
  private readonly cache = new Map<string, Discovered>();

  constructor(options: OidcOptions, deps?: AdapterDeps) {
    super(options, deps);
    const config = deps?.config as { security?: { allowLoopbackFetch?: boolean } } | undefined;
    const allowLoopback = config?.security?.allowLoopbackFetch === true;
    this.allowHttp = options.allowInsecureIssuer === true || allowLoopback;
    this.fetch = createSafeFetch({
      allowLoopback,
      requireHttps: !this.allowHttp,
      timeoutMs: options.requestTimeoutMs ?? 10_000,
      maxBytes: options.maxResponseBytes,
    });
  }

  async testConnection(conn: SsoConnectionSettings): Promise<ConnectionTestResult> {
    try {
      const m = await this.discover(conn, { fresh: true });
      return {
        ok: true,
        details: {
          issuer: m.issuer,
          authorization_endpoint: m.authorization_endpoint,
          token_endpoint: m.token_endpoint,
          jwks_uri: m.jwks_uri,
          userinfo_endpoint: m.userinfo_endpoint ?? null,
          pkce_s256: (m.code_challenge_methods_supported ?? ['S256']).includes('S256'),
        },
      };
    } catch (err) {
      if (err instanceof DiscoveryError)
        return { ok: false, error: err.code, details: { message: err.message, ...err.details } };
      return { ok: false, error: 'discovery_failed', details: { message: (err as Error).message } };
    }
  }

  async startSignIn(conn: SsoConnectionSettings, input: StartSignInInput): Promise<StartSignInResult> {
    const config = await this.configuration(conn);
    const oidc = await loadOidc();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const nonce = oidc.randomNonce();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: input.redirectUri,
      scope: this.scopes(),
      response_type: 'code',
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: input.state,
      nonce,
    });
    return {
      redirectUrl: url.href,
      pending: { state: input.state, nonce, codeVerifier, redirectUri: input.redirectUri },
    };
  }

  async completeSignIn(
    conn: SsoConnectionSettings,
    input: SignInCallback,
    pending: Record<string, unknown>,
  ): Promise<SsoIdentity> {
    const params = input.params;
    if (params.error) {
      throw new SignInError('idp_error', `the identity provider answered ${params.error}`, {
        details: { error: params.error, description: params.error_description ?? null },
      });
    }
    this.assertState(params.state, pending);
    if (!params.code) throw new SignInError('invalid_response', 'the callback carries no code');
    if (typeof pending.codeVerifier !== 'string' || typeof pending.nonce !== 'string')
      throw new SignInError('state_mismatch', 'no sign-in was started');

    let config: Oidc.Configuration;
    try {
      config = await this.configuration(conn);
    } catch (err) {
      throw new SignInError('idp_error', (err as Error).message, { cause: err });
    }
    const oidc = await loadOidc();
    const current = new URL(typeof pending.redirectUri === 'string' ? pending.redirectUri : input.url);
    current.search = new URLSearchParams({ ...params }).toString();
    try {
      const tokens = await oidc.authorizationCodeGrant(config, current, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state as string,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new SignInError('invalid_response', 'no ID token');
      let {
        email,
        email_verified: verified,
        name,
      } = claims as { email?: unknown; email_verified?: unknown; name?: unknown };
      if (typeof email !== 'string' && tokens.access_token && config.serverMetadata().userinfo_endpoint) {
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        ({
          email,
          email_verified: verified,
          name,
        } = info as { email?: unknown; email_verified?: unknown; name?: unknown });
      }
      return this.identity(claims.sub, email, verified, name);
    } catch (err) {
      throw toSignInError(oidc, err);
    }
  }

  private scopes(): string {
    const set = new Set(['openid', ...this.options.scopes.split(' ')]);
    return [...set].join(' ');
  }

  /** An openid-client Configuration on guarded, exactly matched discovery; secrets never cached. */
  private async configuration(conn: SsoConnectionSettings): Promise<Oidc.Configuration> {
    const metadata = await this.discover(conn, { fresh: false });
    if (!conn.clientId) throw new DiscoveryError('discovery_failed', 'the connection has no client id');
    const oidc = await loadOidc();
    const methods = metadata.token_endpoint_auth_methods_supported ?? ['client_secret_basic'];
    const auth = methods.includes('client_secret_basic')
      ? oidc.ClientSecretBasic(conn.clientSecret ?? '')
      : oidc.ClientSecretPost(conn.clientSecret ?? '');
    const client: Partial<Oidc.ClientMetadata> = {
      client_secret: conn.clientSecret ?? undefined,
      [oidc.clockTolerance]: this.options.clockToleranceSeconds ?? 60,
    };
    const config = new oidc.Configuration(metadata, conn.clientId, client, auth);
    config[oidc.customFetch] = (url, options) => this.fetch(url, options as Parameters<SafeFetch>[1]);
    config.timeout = Math.ceil((this.options.requestTimeoutMs ?? 10_000) / 1000);
    if (this.allowHttp) oidc.allowInsecureRequests(config);
    return config;
  }

  /** Fetches `<issuer>/.well-known/openid-configuration` through the guard; the issuer must match exactly. */
  private async discover(conn: SsoConnectionSettings, { fresh }: { fresh: boolean }): Promise<Oidc.ServerMetadata> {
    const issuer = conn.issuer ?? '';
    let url: URL;
    try {
      url = new URL(issuer);
    } catch {
      throw new DiscoveryError('discovery_failed', 'the issuer is not a URL', { issuer });
    }
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && this.allowHttp)) {
      throw new DiscoveryError('insecure_issuer', 'the issuer must use https', { issuer });
    }
    const cached = this.cache.get(issuer);
    if (!fresh && cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.metadata;

    const wellKnown = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
    let res: Response;
    try {
      res = await this.fetch(wellKnown, { headers: { accept: 'application/json' }, redirect: 'follow' });
    } catch (err) {
      if (err instanceof SafeFetchError) {
        const code =
          err.code === 'blocked_address'
            ? 'blocked_address'
            : err.code === 'insecure_url'
              ? 'insecure_issuer'
              : 'discovery_failed';
        throw new DiscoveryError(code, err.message, { reason: err.code, ...err.details });
      }
      throw new DiscoveryError('discovery_failed', (err as Error).message);
    }
    if (res.status !== 200)
      throw new DiscoveryError('discovery_failed', `discovery answered HTTP ${res.status}`, {
        status: res.status,
        url: wellKnown,
      });
    let body: Record<string, unknown>;
    try {
      body = (await res.json()) as Record<string, unknown>;
    } catch {
      throw new DiscoveryError('discovery_failed', 'discovery did not answer JSON', { url: wellKnown });
    }
    if (typeof body !== 'object' || body === null)
      throw new DiscoveryError('discovery_failed', 'discovery did not answer an object');
    if (body.issuer !== issuer)
      throw new DiscoveryError('issuer_mismatch', 'the discovered issuer differs from the configured one', {
        expected: issuer,
        found: body.issuer ?? null,
      });
    for (const key of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
      if (typeof body[key] !== 'string')
        throw new DiscoveryError('discovery_failed', `discovery has no ${key}`, { missing: key });
    }
    const metadata = body as unknown as Oidc.ServerMetadata;
    this.cache.set(issuer, { metadata, at: Date.now() });
    return metadata;
  }
}

/** openid-client and guard errors → the contract's sign-in error codes. */
function toSignInError(oidc: typeof Oidc, err: unknown): SignInError {
  if (err instanceof SignInError) return err;
  if (err instanceof SafeFetchError)
    return new SignInError('idp_error', err.message, { details: { reason: err.code }, cause: err });
  const e = err as { code?: string; message?: string; error?: string; cause?: { claim?: string } };
  const message = e.message ?? String(err);
  if (err instanceof oidc.AuthorizationResponseError)
    return new SignInError('idp_error', message, { details: { error: e.error ?? null }, cause: err });
  if (err instanceof oidc.ResponseBodyError)
    return new SignInError('invalid_response', message, { details: { error: e.error ?? null }, cause: err });
  if (e.code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED') return new SignInError('expired', message, { cause: err });
  if (e.code === 'OAUTH_JWS_SIGNATURE_VERIFICATION_FAILED' || e.code === 'OAUTH_KEY_SELECTION_FAILED')
    return new SignInError('signature_invalid', message, { cause: err });
  if (e.code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED' && /aud/.test(message))
    return new SignInError('audience_mismatch', message, { cause: err });
  if (/state/.test(message) && e.code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED')
    return new SignInError('state_mismatch', message, { cause: err });
  return new SignInError('invalid_response', message, { details: { code: e.code ?? null }, cause: err });
}
