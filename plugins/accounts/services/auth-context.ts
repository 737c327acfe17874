import type { Knex } from 'knex';
import type { Principal } from '../../../core/http/auth.js';
import { unauthenticated } from '../../../core/http/errors.js';
import { ApiTokenModel, OrganizationModel, UserModel } from '../models.js';
import type { AccountsOptions } from '../options.js';
import type { Plan, PlanCatalog } from '../plans.js';
import { accessibleWorkspaces } from './access.js';
import { organizationJson, userJson, workspaceSummaryJson, type OrganizationJson, type UserJson } from './format.js';
import type { SessionInfo, SessionService } from './session-service.js';

export interface AuthContextJson {
  user: UserJson;
  organization: OrganizationJson;
  workspaces: ReturnType<typeof workspaceSummaryJson>[];
  session: { expires_at: string; sso: boolean };
  staff: boolean;
  plan: Plan;
}

/**
 * The one builder of the AuthContext answer (login, magic link, reset, verification, me, signup,
 * invitation acceptance, and later single sign-on recovery). Container key `authContextBuilder`.
 */
export class AuthContextBuilder {
  private readonly planCatalog: PlanCatalog;
  private readonly staffEmails: Set<string>;
  private readonly sessions: SessionService;
  private readonly db: Knex;

  constructor({
    planCatalog,
    accountsOptions,
    sessionService,
    db,
  }: {
    planCatalog: PlanCatalog;
    accountsOptions: AccountsOptions;
    sessionService: SessionService;
    db: Knex;
  }) {
    this.planCatalog = planCatalog;
    this.staffEmails = new Set(accountsOptions.staffEmails.map((e) => e.toLowerCase()));
    this.sessions = sessionService;
    this.db = db;
  }

  isStaff(user: Pick<UserModel, 'staff' | 'email'>): boolean {
    return user.staff === true || this.staffEmails.has(user.email.toLowerCase());
  }

  /**
   * Builds the answer for `user` with the given session facts; `db` may be a transaction. `scope`:
   * the workspaces of a token limited to some (the answer shows only those).
   */
  async build(
    db: Knex,
    user: UserModel,
    session: SessionInfo,
    scope: string[] | null = null,
  ): Promise<AuthContextJson> {
    const org = await OrganizationModel.query(db).findById(user.org_id);
    if (!org) throw new Error(`organization ${user.org_id} of user ${user.id} is missing`);
    const workspaces = (await accessibleWorkspaces(db, user)).filter((w) => !scope || scope.includes(w.id));
    return {
      user: userJson(
        user,
        workspaces.map((w) => w.id),
      ),
      organization: organizationJson(org),
      workspaces: workspaces.map(workspaceSummaryJson),
      session: { expires_at: session.expires_at.toISOString(), sso: session.sso },
      staff: this.isStaff(user),
      plan: this.planCatalog.get(org.plan),
    };
  }

  /**
   * The AuthContext of an authenticated caller: a session's own expiry, or for an API token its
   * expiry (sso false).
   */
  async forPrincipal(principal: Principal, db: Knex = this.db): Promise<AuthContextJson> {
    if (!principal.userId) throw unauthenticated();
    const user = await UserModel.query(db).forOrg(principal.orgId).findById(principal.userId);
    if (!user) throw unauthenticated();
    if (principal.kind === 'session' && principal.sessionId) {
      const s = await this.sessions.findById(db, principal.orgId, principal.sessionId);
      if (!s) throw unauthenticated();
      return this.build(db, user, this.sessions.info(s));
    }
    const token = principal.tokenId
      ? await ApiTokenModel.query(db).forOrg(principal.orgId).findById(principal.tokenId)
      : undefined;
    if (!token) throw unauthenticated();
    return this.build(db, user, { expires_at: new Date(token.expires_at), sso: false }, principal.workspaceIds);
  }
}
