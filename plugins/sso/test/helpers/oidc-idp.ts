import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface LocalOidc {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Who signs in at the IdP next (sub → claims). */
  account: { sub: string; email: string; email_verified: boolean; name: string };
  /**
   * Plays the browser at the IdP: follows the authorization URL through the (automatic) login and
   * consent, and answers the URL the IdP sends the browser back to.
   */
  authorize(url: string): Promise<string>;
  close(): Promise<void>;
}

/** An oidc-provider IdP on 127.0.0.1 whose interactions sign `account` in without a form. */
export async function startOidcProvider(redirectUri: string): Promise<LocalOidc> {
  const clientId = 'patchwell-test';
  const clientSecret = 'a-long-client-secret-for-the-test-idp-0123456789';
  const state: LocalOidc['account'] = {
    sub: 'sub-ada',
    email: 'ada@acme.test',
    email_verified: true,
    name: 'Ada Lovelace',
  };

  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx, sub) => Promise.resolve({ accountId: sub, claims: () => Promise.resolve({ ...state, sub }) }),
    pkce: { required: () => true },
    cookies: { keys: ['test-cookie-key-0123456789'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  });
  provider.on('server_error', (_ctx: unknown, err: Error) => console.error('oidc-provider', err));
  const callback = provider.callback();

  server.on('request', (req, res) => {
    if (!req.url?.startsWith('/interaction/')) return void callback(req, res);
    void (async () => {
      const details = await provider.interactionDetails(req, res);
      const grant = new provider.Grant({ accountId: state.sub, clientId });
      grant.addOIDCScope('openid email profile');
      const grantId = await grant.save();
      await provider.interactionFinished(
        req,
        res,
        { login: { accountId: state.sub }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
      void details;
    })().catch((err: Error) => {
      res.statusCode = 500;
      res.end(err.message);
    });
  });

  const authorize = async (start: string): Promise<string> => {
    const jar = new Map<string, string>();
    let url = start;
    for (let i = 0; i < 10; i++) {
      if (!url.startsWith(issuer)) return url;
      const res = await fetch(url, {
        redirect: 'manual',
        headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') },
      });
      for (const c of res.headers.getSetCookie()) {
        const [pair] = c.split(';');
        const idx = pair.indexOf('=');
        jar.set(pair.slice(0, idx), pair.slice(idx + 1));
      }
      const location = res.headers.get('location');
      if (!location)
        throw new Error(`the IdP answered ${res.status} without a redirect: ${(await res.text()).slice(0, 300)}`);
      url = new URL(location, url).href;
    }
    throw new Error('too many redirects at the IdP');
  };

  return {
    issuer,
    clientId,
    clientSecret,
    account: state,
    authorize,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
