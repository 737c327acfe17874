/** Signing users in with the code host's OAuth app (PKCE). */
import { createHash, randomBytes } from 'node:crypto';

export interface AuthorizeInput {
  state: string;
  /** PKCE S256 challenge of the verifier kept with the state. */
  codeChallenge: string;
  redirectUri: string;
}

export interface ExchangeInput {
  code: string;
  codeVerifier: string;
  redirectUri: string;
}

/** A signed-in code-host user. */
export interface CodeHostUser {
  login: string;
  /** Primary verified email, when the host shares one. */
  email: string | null;
  /** User access token (stored encrypted as a `code_host_user_token` credential). */
  token: string;
}

/** A PKCE pair: keep the verifier with the state, send the S256 challenge. */
export function createPkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: pkceChallenge(verifier) };
}

/** S256 challenge of a PKCE verifier. */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}
