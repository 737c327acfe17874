/**
 * GitHub App authentication: the app's JWT (RS256, signed with the app's private key through
 * node:crypto) and installation tokens, cached until shortly before they expire.
 */
import { createPrivateKey, createSign, type KeyObject } from 'node:crypto';
import { AdapterError } from '../../core/contracts/index.js';

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** A PEM key from config: literal newlines or `\n` escapes (environment variables). */
export function readPrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem.includes('\\n') ? pem.replace(/\\n/g, '\n') : pem);
  } catch (err) {
    throw new AdapterError('invalid_private_key', 'the GitHub App private key is not a readable PEM key', {
      cause: err,
    });
  }
}

/** The app's JWT: issued a minute in the past (clock drift), valid nine minutes (GitHub allows ten). */
export function appJwt(appId: string, key: KeyObject, now = Date.now()): string {
  const iat = Math.floor(now / 1000) - 60;
  const header = b64url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = b64url(JSON.stringify({ iat, exp: iat + 600 - 60, iss: appId }));
  const signature = createSign('RSA-SHA256').update(`${header}.${payload}`).sign(key);
  return `${header}.${payload}.${b64url(signature)}`;
}

export interface InstallationToken {
  token: string;
  expiresAt: Date;
}

/**
 * Installation tokens by installation id, reused until five minutes before expiry; concurrent
 * callers share one request.
 */
export class InstallationTokenCache {
  private readonly tokens = new Map<string, InstallationToken>();
  private readonly inflight = new Map<string, Promise<InstallationToken>>();

  constructor(
    private readonly mint: (installationId: string) => Promise<InstallationToken>,
    private readonly marginMs = 5 * 60_000,
  ) {}

  async get(installationId: string): Promise<string> {
    const cached = this.tokens.get(installationId);
    if (cached && cached.expiresAt.getTime() - this.marginMs > Date.now()) return cached.token;
    let pending = this.inflight.get(installationId);
    if (!pending) {
      pending = this.mint(installationId).finally(() => this.inflight.delete(installationId));
      this.inflight.set(installationId, pending);
    }
    const fresh = await pending;
    this.tokens.set(installationId, fresh);
    return fresh.token;
  }

  /** Forgets a token the host refused (revoked, installation removed). */
  forget(installationId: string): void {
    this.tokens.delete(installationId);
  }
}
