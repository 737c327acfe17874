import type { Knex } from 'knex';
import { forOrg, run } from '../../../core/data/statements.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import { SessionModel, UserModel } from '../models.js';
import type { AccountsOptions } from '../options.js';
import type { Credentials, CredentialUser } from './access.js';
import { clientAddress, userAgentOf, type ClientRequest, type TrustProxy } from '../../../core/contracts/index.js';

const TOUCH = forOrg('update sessions set last_seen_at = $3, idle_expires_at = $4 where org_id = $1 and id = $2');

export interface OpenedSession {
  /** The cookie value; never stored. */
  token: string;
  session: SessionModel;
  expiresAt: Date;
}

/** What a request needs of the signed-in user (see `resolve`). */
export type SessionUser = CredentialUser;

export interface SessionInfo {
  expires_at: Date;
  sso: boolean;
}

const MINUTE = 60_000;

/**
 * Server-side sessions: opaque 256-bit tokens (`pws_…`), stored as SHA-256. A session ends at the
 * earlier of its sliding idle expiry and its absolute expiry, or when closed.
 *
 * Other plugins (code-host sign-in, single sign-on) open sessions through `open` and set the
 * `pw_session` cookie with the returned token (`h.state('pw_session', token)`).
 */
export class SessionService {
  private readonly db: Knex;
  private readonly opts: AccountsOptions['session'];
  private readonly trustProxy: TrustProxy;

  private readonly credentials: Credentials;

  constructor({
    db,
    accountsOptions,
    config,
    credentials,
  }: {
    db: Knex;
    accountsOptions: AccountsOptions;
    config: AppConfig;
    credentials: Credentials;
  }) {
    this.db = db;
    this.credentials = credentials;
    this.opts = accountsOptions.session;
    this.trustProxy = config.server.trustProxy;
  }

  /** Opens a session for `user` in `trx` and records the sign-in on the user. */
  async open(
    trx: Knex,
    user: UserModel,
    { sso, request }: { sso: boolean; request?: ClientRequest | null },
  ): Promise<OpenedSession> {
    const { token, hash } = newToken('pws');
    const now = new Date();
    const session = await SessionModel.query(trx).insert({
      org_id: user.org_id,
      user_id: user.id,
      token_hash: hash,
      sso,
      ip: request ? clientAddress(request, this.trustProxy) : null,
      user_agent: request ? userAgentOf(request) : null,
      last_seen_at: now,
      idle_expires_at: new Date(now.getTime() + this.opts.idleMinutes * MINUTE),
      absolute_expires_at: new Date(now.getTime() + this.opts.absoluteMinutes * MINUTE),
      created_at: now,
    });
    await UserModel.query(trx).forOrg(user.org_id).findById(user.id).patch({ last_login_at: now });
    user.last_login_at = now;
    return { token, session, expiresAt: this.expiresAt(session) };
  }

  expiresAt(s: Pick<SessionModel, 'idle_expires_at' | 'absolute_expires_at'>): Date {
    return new Date(Math.min(new Date(s.idle_expires_at).getTime(), new Date(s.absolute_expires_at).getTime()));
  }

  info(s: SessionModel): SessionInfo {
    return { expires_at: this.expiresAt(s), sso: s.sso };
  }

  /**
   * The live session and its user for a cookie value, or null, in one round trip
   * (`credentialWithUser`).
   * Slides the idle expiry, writing at most once per `touchSeconds`.
   */
  async resolve(token: string): Promise<{ session: SessionModel; user: SessionUser } | null> {
    if (!token.startsWith('pws_') || token.length > 100) return null;
    const found = await this.credentials.find('sessions', hashToken(token));
    if (!found) return null;
    const now = new Date();
    const session = SessionModel.fromDatabaseJson(found.credential);
    if (session.revoked_at || this.expiresAt(session).getTime() <= now.getTime()) return null;
    const { user } = found;
    if (user.removed_at || user.disabled_at) return null;
    if (now.getTime() - new Date(session.last_seen_at).getTime() >= this.opts.touchSeconds * 1000) {
      const idle = new Date(now.getTime() + this.opts.idleMinutes * MINUTE);
      // Outside knex: a touch is not a change of the credential (it would empty the credential cache).
      await run(this.db, TOUCH, [session.org_id, session.id, now, idle]);
      session.last_seen_at = now;
      session.idle_expires_at = idle;
      // The cached row too, so that the next request does not touch again.
      Object.assign(found.credential, { last_seen_at: now, idle_expires_at: idle });
    }
    return { session, user };
  }

  async findById(db: Knex, orgId: string, id: string): Promise<SessionModel | undefined> {
    return SessionModel.query(db).forOrg(orgId).findById(id);
  }

  /** Closes the session a cookie names, whoever it belongs to (logout, rotation on sign-in). */
  async closeByToken(db: Knex, token: string | null | undefined, reason: string): Promise<void> {
    if (!token || !token.startsWith('pws_')) return;
    await SessionModel.query(db)
      .acrossOrgs('close the session a cookie names')
      .where('token_hash', hashToken(token))
      .whereNull('revoked_at')
      .patch({ revoked_at: new Date(), revoked_reason: reason });
  }

  /** Closes every open session of a user, except `exceptId`. */
  async closeAllForUser(
    db: Knex,
    user: { id: string; org_id: string },
    reason: string,
    exceptId?: string,
  ): Promise<void> {
    const q = SessionModel.query(db).forOrg(user.org_id).where('user_id', user.id).whereNull('revoked_at');
    if (exceptId) q.whereNot('id', exceptId);
    await q.patch({ revoked_at: new Date(), revoked_reason: reason });
  }
}
