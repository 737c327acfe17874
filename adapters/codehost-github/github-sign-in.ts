/** Signing in with the GitHub App's OAuth client (PKCE): the authorize page and the code exchange. */
import {
  AdapterError,
  type AuthorizeInput,
  type CodeHostUser,
  type ExchangeInput,
} from '../../core/contracts/index.js';
import type { GhSchemas } from './github-json.js';
import type { RestClient } from './rest-client.js';

/** The OAuth token endpoint's answer (not part of the REST API): a token, or an error for a bad code. */
interface OAuthTokenAnswer {
  access_token?: string;
  token_type?: string;
  scope?: string;
  error?: string;
  error_description?: string;
}

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export function githubAuthorizeUrl(webUrl: string, oauth: OAuthClient, input: AuthorizeInput): string {
  const q = new URLSearchParams({
    client_id: oauth.clientId,
    redirect_uri: input.redirectUri,
    state: input.state,
    code_challenge: input.codeChallenge,
    code_challenge_method: 'S256',
    allow_signup: 'false',
  });
  return `${webUrl}/login/oauth/authorize?${q}`;
}

/** The user behind an authorization code: their login, their primary verified email when the app may read it, and the token. */
export async function exchangeGithubCode(
  client: RestClient,
  webUrl: string,
  oauth: OAuthClient,
  input: ExchangeInput,
): Promise<CodeHostUser> {
  const { clientId, clientSecret } = oauth;
  const { data } = await client.request<OAuthTokenAnswer>({
    method: 'POST',
    path: `${webUrl}/login/oauth/access_token`,
    accept: 'application/json',
    body: {
      client_id: clientId,
      client_secret: clientSecret,
      code: input.code,
      redirect_uri: input.redirectUri,
      code_verifier: input.codeVerifier,
    },
  });
  // GitHub answers 200 with an `error` field for a bad code.
  if (!data || typeof data.access_token !== 'string')
    throw new AdapterError('invalid_grant', `GitHub refused the code: ${String(data?.error ?? 'no token')}`);
  const token = data.access_token;
  const user = (
    await client.request<GhSchemas['private-user'] | GhSchemas['public-user']>({
      path: '/user',
      authorization: `Bearer ${token}`,
    })
  ).data;
  let email: string | null;
  try {
    const emails = (
      await client.request<Array<GhSchemas['email']>>({ path: '/user/emails', authorization: `Bearer ${token}` })
    ).data;
    const address: unknown = emails.find((e) => e.primary && e.verified)?.email;
    email = typeof address === 'string' ? address : null;
  } catch {
    email = null; // the app may not have the email permission
  }
  return { login: String(user.login), email, token };
}
