import type { Knex } from 'knex';
import type { Principal, Role } from '../../../core/http/auth.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import { InvitationModel, OrganizationModel, UserModel } from '../models.js';
import {
  assertWithinScope,
  checkWorkspaceIds,
  invalidField,
  seesAllWorkspaces,
  setWorkspaceGrants,
  tokenScope,
  visibleIds,
} from './access.js';
import type { AuthService, CallInfo, SignedIn } from './auth-service.js';
import type { AccountsDeps } from './deps.js';
import { requestDetails, userActor, type SignedInActor } from '../../../core/contracts/index.js';
import { invalidToken } from './email-tokens.js';
import { invitationJson, personRef, type InvitationStatus, type PersonRefJson } from './format.js';
import type { MemberService } from './member-service.js';

const DAY = 86_400_000;
export const INVITATION_TTL_MS = 7 * DAY;

const ROLE_LABELS: Record<'en' | 'it', Record<Role, string>> = {
  en: { owner: 'owner', admin: 'administrator', reviewer: 'reviewer', client_viewer: 'client viewer' },
  it: { owner: 'proprietario', admin: 'amministratore', reviewer: 'revisore', client_viewer: 'cliente (sola lettura)' },
};

export interface CreateInvitationInput {
  email: string;
  role: Role;
  workspace_ids?: string[];
}

export interface AcceptInput {
  token: string;
  name?: string;
  password?: string;
}

type InvitationJson = ReturnType<typeof invitationJson>;

/** Invitations by email: 7-day single-use links; accepting creates the account when needed. */
export class InvitationService {
  constructor(private readonly d: AccountsDeps & { memberService: MemberService; authService: AuthService }) {}

  async list(
    principal: Principal,
    opts: { cursor?: string; limit?: number; status?: InvitationStatus },
  ): Promise<Page<InvitationJson>> {
    const q = this.d.db('invitations').select('*').where('org_id', principal.orgId);
    const now = new Date();
    if (opts.status === 'accepted') q.whereNotNull('accepted_at');
    if (opts.status === 'revoked') q.whereNull('accepted_at').whereNotNull('revoked_at');
    if (opts.status === 'pending') q.whereNull('accepted_at').whereNull('revoked_at').where('expires_at', '>', now);
    if (opts.status === 'expired') q.whereNull('accepted_at').whereNull('revoked_at').where('expires_at', '<=', now);
    const page = await paginate<Record<string, unknown>>(
      q,
      [
        { column: 'created_at', direction: 'desc', type: 'date' },
        { column: 'id', direction: 'desc' },
      ],
      opts,
    );
    const rows = page.items.map((r) => InvitationModel.fromDatabaseJson(r));
    const inviters = await this.inviters(this.d.db, principal.orgId, rows);
    const json = (i: InvitationModel) => invitationJson(i, inviters.get(i.invited_by_user_id ?? '') ?? null);
    return {
      items: rows.map((i) => ({ ...json(i), workspace_ids: visibleIds(tokenScope(principal), i.workspace_ids ?? []) })),
      next_cursor: page.next_cursor,
    };
  }

  private async inviters(db: Knex, orgId: string, rows: InvitationModel[]): Promise<Map<string, PersonRefJson>> {
    const ids = [...new Set(rows.map((r) => r.invited_by_user_id).filter((x): x is string => !!x))];
    if (ids.length === 0) return new Map();
    const users = await UserModel.query(db).forOrg(orgId).whereIn('id', ids);
    return new Map(users.map((u) => [u.id, personRef(u)]));
  }

  async create(principal: Principal, input: CreateInvitationInput, actor: SignedInActor): Promise<InvitationJson> {
    if (input.role === 'owner' && principal.role !== 'owner') throw forbidden('Only an owner can invite an owner');
    await this.d.rateLimiter.consume(
      `invite:org:${principal.orgId}`,
      100,
      60 * 60_000,
      'Too many invitations; retry later',
    );
    const email = input.email.toLowerCase();
    const workspaceIds = seesAllWorkspaces(input.role)
      ? []
      : await checkWorkspaceIds(this.d.db, principal.orgId, input.workspace_ids ?? []);
    assertWithinScope(principal.workspaceIds, input.role, workspaceIds);
    const { token, hash } = newToken('pwi');

    return this.d.db.transaction(async (trx) => {
      const member = await UserModel.query(trx)
        .forOrg(principal.orgId)
        .where('email', email)
        .whereNull('removed_at')
        .limit(1)
        .first();
      if (member) throw conflict('already_member', 'This address already belongs to a member of your organization');
      const org = (await OrganizationModel.query(trx).findById(principal.orgId))!;
      const inviter = principal.userId
        ? await UserModel.query(trx).forOrg(principal.orgId).findById(principal.userId)
        : undefined;
      // A new invitation to the same address replaces the pending one.
      await InvitationModel.query(trx)
        .forOrg(principal.orgId)
        .where('email', email)
        .whereNull('accepted_at')
        .whereNull('revoked_at')
        .patch({ revoked_at: new Date() });
      const inv = await InvitationModel.query(trx).insert({
        org_id: principal.orgId,
        email,
        role: input.role,
        workspace_ids: workspaceIds,
        token_hash: hash,
        invited_by_user_id: principal.userId,
        expires_at: new Date(Date.now() + INVITATION_TTL_MS),
      });
      const locale = org.locale === 'it' ? 'it' : 'en';
      await this.d.accountMail.send(trx, org.id, 'accounts.invitation', email, locale, {
        inviter_name: inviter?.name || inviter?.email || org.name,
        org_name: org.name,
        role: ROLE_LABELS[locale][input.role],
        expires_at: inv.expires_at.toISOString().slice(0, 10),
        link: this.d.accountMail.link('/invitations/accept', { token }),
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'invitation.created',
        target: { type: 'invitation', id: inv.id },
        metadata: { email, role: input.role, workspace_ids: workspaceIds },
      });
      return invitationJson(inv, inviter ? personRef(inviter) : null);
    });
  }

  async revoke(principal: Principal, id: string, actor: SignedInActor): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const inv = await InvitationModel.query(trx).forOrg(principal.orgId).findById(id).forUpdate();
      if (!inv) throw notFound('invitation');
      if (inv.accepted_at || inv.revoked_at)
        throw conflict('invitation_not_pending', 'Only a pending invitation can be revoked');
      assertWithinScope(principal.workspaceIds, inv.role, inv.workspace_ids ?? []);
      await InvitationModel.query(trx).forOrg(principal.orgId).findById(id).patch({ revoked_at: new Date() });
      await this.d.audit.record(trx, {
        actor,
        action: 'invitation.revoked',
        target: { type: 'invitation', id },
        metadata: { email: inv.email },
      });
    });
  }

  /** The pending invitation a token names (locked in `trx`), or 400 invalid_token. */
  private async byToken(db: Knex, token: string, lock: boolean): Promise<InvitationModel> {
    if (!token.startsWith('pwi_') || token.length > 100) throw invalidToken('unknown');
    const q = InvitationModel.query(db)
      .acrossOrgs('invitation lookup by token hash')
      .where('token_hash', hashToken(token))
      .limit(1)
      .first();
    if (lock) q.forUpdate();
    const inv = await q;
    if (!inv) throw invalidToken('unknown');
    if (inv.accepted_at) throw invalidToken('used');
    if (inv.revoked_at) throw invalidToken('revoked');
    if (new Date(inv.expires_at).getTime() <= Date.now()) throw invalidToken('expired');
    return inv;
  }

  async preview(token: string) {
    const inv = await this.byToken(this.d.db, token, false);
    const org = (await OrganizationModel.query(this.d.db).findById(inv.org_id))!;
    const inviter = inv.invited_by_user_id
      ? await UserModel.query(this.d.db).forOrg(inv.org_id).findById(inv.invited_by_user_id)
      : undefined;
    const existing = await this.d.authService.findByEmail(this.d.db, inv.email);
    return {
      email: inv.email,
      role: inv.role,
      organization: { id: org.id, name: org.name },
      invited_by: inviter ? { name: inviter.name, email: inviter.email } : null,
      expires_at: new Date(inv.expires_at).toISOString(),
      existing_account: !!existing,
    };
  }

  /**
   * Joins the organization. A new address needs name and password; an existing account needs
   * nothing more (the emailed token proves the address, as a magic link does) and moves to this
   * organization, unless it is the last owner of its own.
   */
  async accept(input: AcceptInput, call: CallInfo): Promise<SignedIn> {
    const passwordHash = input.password ? await this.d.passwords.hash(input.password) : null;
    return this.d.db.transaction(async (trx) => {
      const inv = await this.byToken(trx, input.token, true);
      const org = (await OrganizationModel.query(trx).findById(inv.org_id))!;
      let user = await this.d.authService.findByEmail(trx, inv.email);
      let via: 'new_account' | 'existing_account' | 'moved' = 'existing_account';
      if (!user) {
        if (!input.name) throw invalidField('payload.name', 'name is required to create your account');
        if (!passwordHash) throw invalidField('payload.password', 'password is required to create your account');
        user = await UserModel.query(trx).insert({
          org_id: org.id,
          email: inv.email,
          name: input.name,
          role: inv.role,
          password_hash: passwordHash,
          locale: org.locale === 'it' ? 'it' : 'en',
          email_verified_at: new Date(),
          staff: false,
        });
        await setWorkspaceGrants(trx, user, inv.workspace_ids ?? []);
        via = 'new_account';
      } else if (user.disabled_at) {
        throw httpError(403, 'account_disabled', 'This account is disabled');
      } else if (user.org_id !== org.id) {
        user = await this.move(trx, user, inv, call);
        via = 'moved';
      }
      const now = new Date();
      await InvitationModel.query(trx)
        .forOrg(org.id)
        .findById(inv.id)
        .patch({ accepted_at: now, accepted_user_id: user.id });
      if (!user.email_verified_at) {
        await UserModel.query(trx).forOrg(org.id).findById(user.id).patch({ email_verified_at: now });
        user.email_verified_at = now;
      }
      await this.d.audit.record(trx, {
        actor: userActor(user, requestDetails(call.request, this.d.config.server.trustProxy)),
        action: 'invitation.accepted',
        target: { type: 'invitation', id: inv.id },
        metadata: { role: user.role, via },
      });
      if (via !== 'existing_account') {
        await this.d.outbox.add(
          trx,
          'accounts.member_joined',
          { org_id: org.id, user_id: user.id, role: user.role, via: 'invitation' },
          { orgId: org.id },
        );
      }
      return this.d.authService.signIn(trx, user, call);
    });
  }

  /** Moves an existing account from its organization into the invitation's. */
  private async move(trx: Knex, user: UserModel, inv: InvitationModel, call: CallInfo): Promise<UserModel> {
    if (await this.d.memberService.isLastOwnerOf(trx, user)) {
      throw conflict(
        'last_owner',
        'You are the last owner of your current organization; make someone else owner there first',
      );
    }
    const from = user.org_id;
    await this.d.memberService.detach(trx, user, 'moved_organization');
    await trx('users')
      .where({ id: user.id, org_id: from })
      .update({ org_id: inv.org_id, role: inv.role, updated_at: new Date() });
    await this.d.audit.record(trx, {
      orgId: from,
      actor: userActor(user, requestDetails(call.request, this.d.config.server.trustProxy)),
      action: 'member.left',
      target: { type: 'user', id: user.id },
      metadata: { joined_organization: inv.org_id },
    });
    await this.d.outbox.add(trx, 'accounts.member_removed', { org_id: from, user_id: user.id }, { orgId: from });
    const moved = (await UserModel.query(trx).forOrg(inv.org_id).findById(user.id))!;
    await setWorkspaceGrants(trx, moved, inv.workspace_ids ?? []);
    return moved;
  }
}
