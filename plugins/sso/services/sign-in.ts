import {
  isAdapterError,
  requestDetails,
  SIGN_IN_ERROR_CODES,
  type RequestDetails,
  type SsoIdentity,
} from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { notFound } from '../../../core/http/errors.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import { SsoConnectionModel, SsoDomainModel, SsoSignInModel } from '../models.js';
import type { ConnectionService } from './connections.js';
import { provisionUser } from './provisioning.js';
import { SsoFailure, type SsoFailureCode } from './sso-failure.js';
import { base, emailDomain, hasPlanFeature, loadOrg, type RequestLike, type SsoDeps, type UserRow } from './deps.js';

export interface BrowserCall {
  request: RequestLike;
  /** The pw_session cookie the request carried (closed when a new session opens). */
  currentCookie: string | null;
  /** The pw_sso browser-binding cookie, if any. */
  browser: string | null;
}

const MINUTE = 60_000;
const BROWSER_PREFIX = 'pwb';

/** A browser-binding token: the one the browser has, or a new one to set. */
export function browserToken(existing: string | null): { token: string; isNew: boolean } {
  if (existing && existing.startsWith(`${BROWSER_PREFIX}_`) && existing.length < 100)
    return { token: existing, isNew: false };
  return { token: newToken(BROWSER_PREFIX).token, isNew: true };
}

const pendingContext = (id: string) => `sso:sign_in:${id}`;

/**
 * Browser sign-in with single sign-on: start (by email domain, or by connection after the app
 * tile confirmation), the OIDC callback, the SAML ACS and its completion step; the identity
 * becomes a user through provisioning.ts (linking, JIT provisioning). State, PKCE verifier, nonce and SAML request id stay server side (sealed); the
 * browser holds only the state and a binding cookie whose hash the sign-in row keeps.
 */
export class SignInService {
  constructor(private readonly d: SsoDeps & { ssoConnections: ConnectionService }) {}

  private page(path: string, params: Record<string, string | null | undefined> = {}): string {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
    const s = q.toString();
    return `${base(this.d.config)}${path}${s ? `${path.includes('?') ? '&' : '?'}${s}` : ''}`;
  }

  afterSignInUrl(redirectTo: string | null): string {
    return this.page(redirectTo ?? this.d.ssoOptions.pages.afterSignIn);
  }

  failureUrl(code: string): string {
    return this.page(this.d.ssoOptions.pages.signIn, { sso_error: code });
  }

  confirmUrl(connectionId: string, redirectTo: string | null): string {
    return this.page(this.d.ssoOptions.pages.confirm, { connection: connectionId, redirect_to: redirectTo });
  }

  /** A connection that may sign people in now (plan includes single sign-on), or 404. */
  async usableConnection(id: string): Promise<SsoConnectionModel> {
    const conn = await this.d.ssoConnections.findAnyOrg(this.d.db, id);
    const org = await loadOrg(this.d.db, conn.org_id);
    if (!hasPlanFeature(this.d, org, 'sso')) throw notFound('connection');
    return conn;
  }

  async tile(id: string) {
    const conn = await this.usableConnection(id);
    const org = await loadOrg(this.d.db, conn.org_id);
    return { id: conn.id, protocol: conn.protocol, name: conn.name, organization: { id: org.id, name: org.name } };
  }

  /** The connection for an email address: its domain verified, a connection naming it. */
  async connectionForEmail(email: string): Promise<SsoConnectionModel> {
    const domain = emailDomain(email);
    const claim = await SsoDomainModel.query(this.d.db)
      .acrossOrgs('sign-in by email domain')
      .where({ domain, status: 'verified' })
      .limit(1)
      .first();
    if (!claim) throw notFound('single sign-on for this email domain');
    const org = await loadOrg(this.d.db, claim.org_id);
    if (!hasPlanFeature(this.d, org, 'sso')) throw notFound('single sign-on for this email domain');
    const conns = (await this.d.ssoConnections.listModels(this.d.db, claim.org_id)).filter((c) =>
      (c.domains ?? []).includes(domain),
    );
    if (!conns.length) throw notFound('single sign-on for this email domain');
    // The one people used last, else the oldest.
    conns.sort(
      (a, b) =>
        (b.last_login_at ? new Date(b.last_login_at).getTime() : 0) -
        (a.last_login_at ? new Date(a.last_login_at).getTime() : 0),
    );
    return conns[0];
  }

  /** Starts a sign-in; answers the IdP address. */
  async start(conn: SsoConnectionModel, redirectTo: string | null, browser: string, ip: string): Promise<string> {
    await this.d.rateLimiter.consume(`sso-start:ip:${ip}`, 60, 10 * MINUTE, 'Too many sign-ins started; retry later');
    const provider = this.d.ssoConnections.provider(conn.protocol);
    const settings = this.d.ssoConnections.settings(conn);
    const state = newToken('st').token;
    const redirectUri =
      conn.protocol === 'oidc' ? settings.serviceProvider.redirectUri : settings.serviceProvider.acsUrl;
    let started: { redirectUrl: string; pending: Record<string, unknown> };
    try {
      started = await provider.startSignIn(settings, { redirectUri, state });
    } catch (err) {
      if (isAdapterError(err)) throw Object.assign(new SsoFailure('idp_error', err.message), { status: 502 });
      throw err;
    }
    const id = newId('ssos');
    await SsoSignInModel.query(this.d.db).insert({
      id,
      org_id: conn.org_id,
      connection_id: conn.id,
      state_hash: hashToken(state),
      browser_hash: hashToken(browser),
      pending_sealed: this.d.secretBox.encrypt(JSON.stringify(started.pending), pendingContext(id)),
      redirect_to: redirectTo,
      expires_at: new Date(Date.now() + this.d.ssoOptions.signInTtlMinutes * MINUTE),
    });
    return started.redirectUrl;
  }

  /** Takes the sign-in a state names, once: it must be live and started in this browser. */
  private async take(
    state: string | undefined,
    browser: string | null,
    connectionId?: string,
  ): Promise<{ row: SsoSignInModel; pending: Record<string, unknown> }> {
    if (!state) throw new SsoFailure('state_mismatch', 'the callback carries no state');
    const row = await SsoSignInModel.query(this.d.db)
      .acrossOrgs('sign-in callback by state')
      .where('state_hash', hashToken(state))
      .limit(1)
      .first();
    if (!row || (connectionId && row.connection_id !== connectionId))
      throw new SsoFailure('state_mismatch', 'no sign-in was started with this state');
    if (row.used_at) throw new SsoFailure('state_mismatch', 'this sign-in was already used');
    if (new Date(row.expires_at).getTime() <= Date.now())
      throw new SsoFailure('sign_in_expired', 'the sign-in took too long; start again');
    if (browser !== null && hashToken(browser) !== row.browser_hash)
      throw new SsoFailure('state_mismatch', 'the sign-in was started in another browser');
    // Counted by returned rows: both engines agree on those.
    const used = (await this.d
      .db('sso_sign_ins')
      .where({ id: row.id, org_id: row.org_id })
      .whereNull('used_at')
      .update({ used_at: new Date() })
      .returning('id')) as unknown[];
    if (used.length !== 1) throw new SsoFailure('state_mismatch', 'this sign-in was already used');
    return {
      row,
      pending: JSON.parse(this.d.secretBox.decrypt(row.pending_sealed, pendingContext(row.id))) as Record<
        string,
        unknown
      >,
    };
  }

  private async validate(
    conn: SsoConnectionModel,
    callback: { method: 'GET' | 'POST'; url: string; params: Record<string, string> },
    pending: Record<string, unknown>,
  ): Promise<SsoIdentity> {
    try {
      return await this.d.ssoConnections
        .provider(conn.protocol)
        .completeSignIn(this.d.ssoConnections.settings(conn), callback, pending);
    } catch (err) {
      if (isAdapterError(err) && (SIGN_IN_ERROR_CODES as readonly string[]).includes(err.code))
        throw new SsoFailure(err.code as SsoFailureCode, `${err.message} (${JSON.stringify(err.details)})`);
      if (isAdapterError(err)) throw new SsoFailure('invalid_response', err.message);
      throw err;
    }
  }

  /** OIDC callback: exchanges the code, signs in. Answers the session token and where to go. */
  async oidcCallback(query: Record<string, string>, call: BrowserCall): Promise<{ token: string; redirect: string }> {
    const { row, pending } = await this.take(query.state, call.browser ?? '');
    const conn = await this.d.ssoConnections.find(this.d.db, row.org_id, row.connection_id);
    const identity = await this.validate(
      conn,
      { method: 'GET', url: `${base(this.d.config)}/v1/auth/sso/oidc/callback`, params: query },
      pending,
    );
    return this.d.db.transaction(async (trx) => {
      const user = await provisionUser(
        this.d,
        trx,
        conn,
        identity,
        requestDetails(call.request, this.d.config.server.trustProxy),
      );
      const { token } = await this.d.authService.signIn(trx, user, call, true);
      return { token: token!, redirect: this.afterSignInUrl(row.redirect_to) };
    });
  }

  /**
   * SAML ACS. A response that answers no sign-in of ours (IdP-initiated) is not trusted: the
   * browser goes to the confirmation page, which starts an SP-initiated sign-in. A valid one is
   * parked for /v1/auth/sso/complete, which opens the session in the browser that started it.
   */
  /** `from`: where the identity provider's form was posted from (the browser), for the audit entry of a new link. */
  async samlAcs(connectionId: string, form: Record<string, string>, from?: RequestDetails): Promise<string> {
    const conn = await this.usableConnection(connectionId);
    if (conn.protocol !== 'saml') throw notFound('connection');
    const relay = form.RelayState;
    const known = relay
      ? await SsoSignInModel.query(this.d.db)
          .forOrg(conn.org_id)
          .where({ state_hash: hashToken(relay), connection_id: conn.id })
          .limit(1)
          .first()
      : undefined;
    if (!known) return this.confirmUrl(conn.id, null);

    // The binding cookie is not sent on this cross-site POST; /complete checks it.
    const { row, pending } = await this.take(relay, null, conn.id);
    const identity = await this.validate(
      conn,
      { method: 'POST', url: this.d.ssoConnections.serviceProvider(conn.id).acsUrl, params: form },
      pending,
    );
    const { token, hash } = newToken('ssoc');
    await this.d.db.transaction(async (trx) => {
      if (identity.assertion) {
        const inserted = (await trx('sso_assertions')
          .insert({
            connection_id: conn.id,
            assertion_id: identity.assertion.id,
            org_id: conn.org_id,
            expires_at: new Date(identity.assertion.expiresAt),
            created_at: new Date(),
          })
          .onConflict(['connection_id', 'assertion_id'])
          .ignore()
          .returning('assertion_id')) as unknown[];
        if (inserted.length === 0) throw new SsoFailure('assertion_replayed', 'this assertion was already used');
      }
      const user = await provisionUser(this.d, trx, conn, identity, from);
      await SsoSignInModel.query(trx)
        .forOrg(conn.org_id)
        .findById(row.id)
        .patch({
          complete_token_hash: hash,
          user_id: user.id,
          complete_expires_at: new Date(Date.now() + this.d.ssoOptions.completeTtlSeconds * 1000),
        });
    });
    return `${base(this.d.config)}/v1/auth/sso/complete?token=${encodeURIComponent(token)}`;
  }

  /** Opens the session of a validated SAML sign-in, once, in the browser that started it. */
  async complete(token: string, call: BrowserCall): Promise<{ token: string; redirect: string }> {
    const row = await SsoSignInModel.query(this.d.db)
      .acrossOrgs('completion by single-use token')
      .where('complete_token_hash', hashToken(token))
      .limit(1)
      .first();
    if (!row || row.completed_at || !row.user_id)
      throw new SsoFailure('state_mismatch', 'this sign-in cannot be completed');
    if (!row.complete_expires_at || new Date(row.complete_expires_at).getTime() <= Date.now())
      throw new SsoFailure('sign_in_expired', 'the sign-in took too long; start again');
    if (!call.browser || hashToken(call.browser) !== row.browser_hash)
      throw new SsoFailure('state_mismatch', 'the sign-in was started in another browser');
    return this.d.db.transaction(async (trx) => {
      const done = (await trx('sso_sign_ins')
        .where({ id: row.id, org_id: row.org_id })
        .whereNull('completed_at')
        .update({ completed_at: new Date() })
        .returning('id')) as unknown[];
      if (done.length !== 1) throw new SsoFailure('state_mismatch', 'this sign-in was already completed');
      const user = (await trx('users')
        .where({ id: row.user_id, org_id: row.org_id })
        .whereNull('removed_at')
        .first()) as UserRow | undefined;
      if (!user || user.disabled_at) throw new SsoFailure('account_disabled', 'this account is closed or disabled');
      const { token: session } = await this.d.authService.signIn(trx, user, call, true);
      return { token: session!, redirect: this.afterSignInUrl(row.redirect_to) };
    });
  }
}
