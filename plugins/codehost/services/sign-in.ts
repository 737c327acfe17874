/**
 * Code-host sign-in and account linking (OAuth with state and PKCE): the start sends the
 * browser to the host with a single-use state bound to this browser (a cookie) and a PKCE
 * challenge; the callback exchanges the code, then signs the user in (through the accounts
 * session service) or links the login to the signed-in user, and sends the browser to the
 * dashboard. Failures also end on the dashboard, as `?error=<code>`.
 */
import type { Request } from '@hapi/hapi';
import type { Knex } from 'knex';
import {
  createPkcePair,
  isAdapterError,
  requestDetails,
  systemActor,
  userActor,
} from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { last4 } from '../../../core/security/secret-box.js';
import type { AuditedActor } from '../../../core/audit/audit-writer.js';
import { hashToken, newToken, safeEqual } from '../../../core/security/tokens.js';
import type { CodehostDeps, SessionUser, SignInAvailability } from './deps.js';
import { StateStore } from './states.js';

export const OAUTH_COOKIE = 'pw_codehost_oauth';

export interface Redirect {
  location: string;
  /** Cookies to set (name → value) or clear (value null). */
  cookies: Record<string, string | null>;
}

/** A member's account, as the accounts plugin stores it. */
type UserRow = SessionUser;

export class SignInService {
  private readonly states: StateStore;

  constructor(private readonly d: CodehostDeps) {
    this.states = new StateStore(d.db);
  }

  private get base(): string {
    return this.d.config.server.publicBaseUrl.replace(/\/+$/, '');
  }

  get callbackUrl(): string {
    return `${this.base}/v1/auth/codehost/callback`;
  }

  private page(path: string, params: Record<string, string>): string {
    const u = new URL(path, `${this.base}/`);
    for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
    return u.toString();
  }

  private fail(code: string, clearCookie = false): Redirect {
    return {
      location: this.page(this.d.options.pages.signIn, { error: code }),
      cookies: clearCookie ? { [OAUTH_COOKIE]: null } : {},
    };
  }

  /** Where to go after success: the start's redirect_to (already validated) or the dashboard. */
  private done(redirectTo: string | null, params: Record<string, string>): string {
    return this.page(redirectTo ?? this.d.options.pages.afterSignIn, params);
  }

  async start(
    principal: Principal | null,
    input: { intent: 'signin' | 'link'; redirect_to?: string },
  ): Promise<Redirect> {
    if (input.intent === 'link' && !principal?.userId) return this.fail('sign_in_required');
    // A host with no way to sign anyone in (the local host without accounts, the embedded
    // default) would show a form that can never succeed: say so on the sign-in page instead.
    if ((this.d.host as Partial<SignInAvailability>).signInAvailable === false)
      return this.fail('codehost_sign_in_unavailable');
    const pkce = createPkcePair();
    const browser = newToken('chb');
    const { state } = await this.states.create(null, input.intent, this.d.options.signInStateTtlMinutes, {
      org_id: input.intent === 'link' ? principal!.orgId : null,
      user_id: input.intent === 'link' ? principal!.userId : null,
      browser_hash: browser.hash,
      verifier_sealed: this.d.secretBox.encrypt(pkce.verifier, 'codehost-oauth-verifier'),
      redirect_to: input.redirect_to ?? null,
    });
    try {
      const location = await this.d.host.authorizeUrl({
        state,
        codeChallenge: pkce.challenge,
        redirectUri: this.callbackUrl,
      });
      return { location, cookies: { [OAUTH_COOKIE]: browser.token } };
    } catch (err) {
      if (isAdapterError(err)) return this.fail('codehost_sign_in_unavailable');
      throw err;
    }
  }

  async callback(
    request: Request,
    input: { code?: string; state?: string; error?: string },
    cookie: string | null,
    currentSession: string | null,
  ): Promise<Redirect> {
    const st = input.state ? await this.states.consume(null, input.state, ['signin', 'link']) : null;
    if (!st || !cookie || !st.browser_hash || !safeEqual(hashToken(cookie), st.browser_hash))
      return this.fail('codehost_state_invalid', true);
    if (input.error || !input.code)
      return this.fail(input.error === 'access_denied' ? 'codehost_access_denied' : 'codehost_sign_in_failed', true);
    let user;
    try {
      user = await this.d.host.exchangeCode({
        code: input.code,
        codeVerifier: this.d.secretBox.decrypt(st.verifier_sealed!, 'codehost-oauth-verifier'),
        redirectUri: this.callbackUrl,
      });
    } catch (err) {
      if (!isAdapterError(err)) throw err;
      this.d.log.info({ err }, 'code-host sign-in: the code was refused');
      return this.fail('codehost_exchange_failed', true);
    }
    if (st.purpose === 'link') return this.link(st.org_id!, st.user_id!, user, st.redirect_to, request);
    return this.signIn(user, st.redirect_to, request, currentSession);
  }

  private async activeUser(db: Knex, where: (q: Knex.QueryBuilder) => void): Promise<UserRow | undefined> {
    const q = db('users').whereNull('removed_at').whereNull('disabled_at');
    where(q);
    return (await q.orderByRaw('last_login_at desc nulls last').orderBy('created_at').first()) as UserRow | undefined;
  }

  private async link(
    orgId: string,
    userId: string,
    cu: { login: string; email: string | null; token: string },
    redirectTo: string | null,
    request: Request,
  ): Promise<Redirect> {
    const user = await this.activeUser(this.d.db, (q) => q.where({ id: userId, org_id: orgId }));
    if (!user) return this.fail('sign_in_required', true);
    if (!this.d.accounts()) return this.fail('codehost_sign_in_unavailable', true);
    await this.d.db.transaction((trx) => this.saveLink(trx, user, cu, userActor(user, this.from(request))));
    return { location: this.done(redirectTo, { codehost: 'linked' }), cookies: { [OAUTH_COOKIE]: null } };
  }

  /** Sets users.code_host_login through the accounts service (one user per login in an organization) and keeps the user token sealed. */
  /** Where the callback came from, under the trust rule. */
  private from(request: Request) {
    return requestDetails(request, this.d.config.server.trustProxy);
  }

  private async saveLink(
    trx: Knex,
    user: UserRow,
    cu: { login: string; token: string },
    actor: AuditedActor,
  ): Promise<void> {
    const accounts = this.d.accounts();
    if (!accounts) throw new Error('code-host sign-in needs the accounts plugin (authService)');
    await accounts.setCodeHostLogin(trx, user, cu.login);
    await trx('codehost_user_tokens')
      .insert({
        user_id: user.id,
        org_id: user.org_id,
        host: this.d.host.identifier,
        login: cu.login,
        token_sealed: this.d.secretBox.encrypt(cu.token, `codehost-user-token:${user.id}`),
        last4: last4(cu.token),
        updated_at: new Date(),
      })
      .onConflict('user_id')
      .merge(['host', 'login', 'token_sealed', 'last4', 'updated_at']);
    if (user.code_host_login !== cu.login) {
      await this.d.audit.record(trx, {
        orgId: user.org_id,
        actor,
        action: 'user.code_host_linked',
        target: { type: 'user', id: user.id },
        changes: { code_host_login: { before: user.code_host_login, after: cu.login } },
      });
      await this.d.outbox.add(
        trx,
        'codehost.user_linked',
        { user_id: user.id, login: cu.login },
        { orgId: user.org_id },
      );
    }
  }

  private async signIn(
    cu: { login: string; email: string | null; token: string },
    redirectTo: string | null,
    request: Request,
    currentSession: string | null,
  ): Promise<Redirect> {
    const sessions = this.d.sessions();
    if (!sessions || !this.d.accounts()) return this.fail('codehost_sign_in_unavailable', true);
    let user = await this.activeUser(this.d.db, (q) =>
      q.whereRaw('lower(code_host_login) = ?', [cu.login.toLowerCase()]),
    );
    let linkedByEmail = false;
    if (!user && cu.email) {
      // A verified address on both sides links the login on first sign-in.
      user = await this.activeUser(this.d.db, (q) =>
        q.where('email', cu.email!.toLowerCase()).whereNotNull('email_verified_at'),
      );
      linkedByEmail = !!user;
    }
    if (!user) return this.fail('codehost_account_not_linked', true);
    const org: { sso_enforced: boolean } | undefined = await this.d
      .db('organizations')
      .where({ id: user.org_id })
      .first('sso_enforced');
    if (org?.sso_enforced) return this.fail('sso_required', true);
    const found = user;
    const token = await this.d.db.transaction(async (trx) => {
      // Linked by a verified address, the link is the system's doing; the request details stay.
      const actor = linkedByEmail
        ? { ...systemActor('codehost', found.org_id), ...this.from(request) }
        : userActor(found, this.from(request));
      await this.saveLink(trx, found, cu, actor);
      await sessions.closeByToken(trx, currentSession, 'rotated');
      return (await sessions.open(trx, found, { sso: false, request })).token;
    });
    return { location: this.done(redirectTo, {}), cookies: { [OAUTH_COOKIE]: null, pw_session: token } };
  }
}
