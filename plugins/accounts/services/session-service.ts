import type { Knex } from 'knex';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import { SessionModel, UserModel } from '../models.js';
import type { AccountsOptions } from '../options.js';
import { clientIp, userAgent, type RequestLike } from './client.js';

export interface OpenedSession {
  /** The cookie value; never stored. */
  token: string;
  session: SessionModel;
  expiresAt: Date;
}

/** What a request needs of the signed-in user (see `resolve`). */
export interface SessionUser {
  id: string;
  org_id: string;
  role: UserModel['role'];
  email: string;
  locale: UserModel['locale'];
  staff: boolean;
  /** Granted workspaces; null for roles that see every workspace. */
  workspace_ids: string[] | null;
}

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
  private readonly trustProxy: boolean;

  constructor({ db, accountsOptions, config }: { db: Knex; accountsOptions: AccountsOptions; config: AppConfig }) {
    this.db = db;
    this.opts = accountsOptions.session;
    this.trustProxy = config.server.trustProxy;
  }

  /** Opens a session for `user` in `trx` and records the sign-in on the user. */
  async open(trx: Knex, user: UserModel, { sso, request }: { sso: boolean; request?: RequestLike | null }): Promise<OpenedSession> {
    const { token, hash } = newToken('pws');
    const now = new Date();
    const session = await SessionModel.query(trx).insert({
      org_id: user.org_id,
      user_id: user.id,
      token_hash: hash,
      sso,
      ip: request ? clientIp(request, this.trustProxy) : null,
      user_agent: request ? userAgent(request) : null,
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
   * The live session and its user for a cookie value, or null. One round trip: the session, the
   * user's principal fields and, for roles that do not see every workspace, their granted
   * workspace ids (every authenticated request pays for this, so it is one query, not three).
   * Slides the idle expiry, writing at most once per `touchSeconds`.
   */
  async resolve(token: string): Promise<{ session: SessionModel; user: SessionUser } | null> {
    if (!token.startsWith('pws_') || token.length > 100) return null;
    const row = (await this.db('sessions as s')
      .join('users as u', function joinUser() {
        this.on('u.id', '=', 's.user_id').andOn('u.org_id', '=', 's.org_id');
      })
      .where('s.token_hash', hashToken(token))
      .select('s.*', {
        u_role: 'u.role',
        u_email: 'u.email',
        u_locale: 'u.locale',
        u_staff: 'u.staff',
        u_removed_at: 'u.removed_at',
        u_disabled_at: 'u.disabled_at',
      })
      .select(this.db.raw(`case when u.role in ('owner', 'admin') then null else array(select uw.workspace_id from user_workspaces uw where uw.user_id = u.id and uw.org_id = u.org_id order by uw.workspace_id) end as u_workspace_ids`))
      .first()) as (Record<string, unknown> & { u_role: UserModel['role']; u_email: string; u_locale: UserModel['locale']; u_staff: boolean; u_removed_at: Date | null; u_disabled_at: Date | null; u_workspace_ids: string[] | null }) | undefined;
    const now = new Date();
    if (!row) return null;
    const { u_role, u_email, u_locale, u_staff, u_removed_at, u_disabled_at, u_workspace_ids, ...sessionRow } = row;
    const session = SessionModel.fromDatabaseJson(sessionRow);
    if (session.revoked_at || this.expiresAt(session).getTime() <= now.getTime()) return null;
    if (u_removed_at || u_disabled_at) return null;
    const user: SessionUser = { id: session.user_id, org_id: session.org_id, role: u_role, email: u_email, locale: u_locale, staff: u_staff, workspace_ids: u_workspace_ids };
    if (now.getTime() - new Date(session.last_seen_at).getTime() >= this.opts.touchSeconds * 1000) {
      const idle = new Date(now.getTime() + this.opts.idleMinutes * MINUTE);
      await this.db('sessions').where({ id: session.id, org_id: session.org_id }).update({ last_seen_at: now, idle_expires_at: idle });
      session.last_seen_at = now;
      session.idle_expires_at = idle;
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
  async closeAllForUser(db: Knex, user: { id: string; org_id: string }, reason: string, exceptId?: string): Promise<void> {
    const q = SessionModel.query(db).forOrg(user.org_id).where('user_id', user.id).whereNull('revoked_at');
    if (exceptId) q.whereNot('id', exceptId);
    await q.patch({ revoked_at: new Date(), revoked_reason: reason });
  }
}
