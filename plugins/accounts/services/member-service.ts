import type { Knex } from 'knex';
import type { Principal, Role } from '../../../core/http/auth.js';
import { conflict, forbidden, notFound } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import { UserModel } from '../models.js';
import {
  assertWithinScope,
  checkWorkspaceIds,
  seesAllWorkspaces,
  setWorkspaceGrants,
  tokenScope,
  visibleIds,
  workspaceIdsByUser,
} from './access.js';
import type { AccountsDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { userJson, type UserJson } from './format.js';
import type { TokenService } from './token-service.js';

export interface UpdateMemberInput {
  role?: Role;
  workspace_ids?: string[];
}

const lastOwner = () =>
  conflict('last_owner', 'The organization needs at least one owner; make someone else owner first');

/** Members of the caller's organization: list, change role and workspace access, remove. */
export class MemberService {
  constructor(private readonly d: AccountsDeps & { tokenService: TokenService }) {}

  async list(principal: Principal, opts: { cursor?: string; limit?: number }): Promise<Page<UserJson>> {
    const q = this.d.db('users').select('*').where('org_id', principal.orgId).whereNull('removed_at');
    const page = await paginate<Record<string, unknown>>(
      q,
      [
        { column: 'created_at', direction: 'asc', type: 'date' },
        { column: 'id', direction: 'asc' },
      ],
      opts,
    );
    const users = page.items.map((r) => UserModel.fromDatabaseJson(r));
    const ws = await workspaceIdsByUser(this.d.db, principal.orgId, users);
    return {
      items: users.map((u) => userJson(u, visibleIds(tokenScope(principal), ws.get(u.id) ?? []))),
      next_cursor: page.next_cursor,
    };
  }

  /** A member of the organization (not removed), locked in `trx`, or 404. */
  private async target(trx: Knex, orgId: string, id: string): Promise<UserModel> {
    const user = await UserModel.query(trx).forOrg(orgId).findById(id).whereNull('removed_at').forUpdate();
    if (!user) throw notFound('member');
    return user;
  }

  /** Whether `user` is the only owner left (rows locked so two demotions cannot race). */
  private async isLastOwner(trx: Knex, user: UserModel): Promise<boolean> {
    if (user.role !== 'owner') return false;
    const owners = await UserModel.query(trx)
      .forOrg(user.org_id)
      .where('role', 'owner')
      .whereNull('removed_at')
      .whereNull('disabled_at')
      .forUpdate()
      .select('id');
    return owners.filter((o) => o.id !== user.id).length === 0;
  }

  async update(principal: Principal, id: string, input: UpdateMemberInput, actor: SignedInActor): Promise<UserJson> {
    return this.d.db.transaction(async (trx) => {
      const user = await this.target(trx, principal.orgId, id);
      if (user.role === 'owner' && principal.role !== 'owner') throw forbidden('Only an owner can change an owner');
      if (input.role === 'owner' && principal.role !== 'owner')
        throw forbidden('Only an owner can make someone an owner');
      // A scoped token changes members within its workspaces only (docs/security.md).
      const scope = principal.workspaceIds;
      if (scope && seesAllWorkspaces(user.role))
        throw forbidden('A token limited to some workspaces cannot change an owner or admin');
      const role = input.role ?? user.role;
      if (role !== 'owner' && (await this.isLastOwner(trx, user))) throw lastOwner();

      const before = (await workspaceIdsByUser(trx, principal.orgId, [user])).get(user.id) ?? [];
      const granted = seesAllWorkspaces(user.role) ? [] : before;
      let wanted = input.workspace_ids ? await checkWorkspaceIds(trx, principal.orgId, input.workspace_ids) : granted;
      assertWithinScope(scope, input.role ?? null, input.workspace_ids ? wanted : []);
      // Grants outside the caller's scope are not its to take away.
      if (scope) wanted = [...new Set([...wanted, ...granted.filter((id) => !scope.includes(id))])].sort();
      if (role !== user.role) await UserModel.query(trx).forOrg(principal.orgId).findById(id).patch({ role });
      if (role !== user.role || input.workspace_ids)
        await setWorkspaceGrants(trx, { id, org_id: principal.orgId, role }, wanted);

      const fresh = (await UserModel.query(trx).forOrg(principal.orgId).findById(id))!;
      const after = (await workspaceIdsByUser(trx, principal.orgId, [fresh])).get(id) ?? [];
      const who = { orgId: principal.orgId, actor, target: { type: 'user', id } };
      if (role !== user.role) {
        await this.d.audit.record(trx, {
          ...who,
          action: 'member.role_changed',
          changes: diffFields({ role: user.role }, { role }),
        });
      }
      if (JSON.stringify(before) !== JSON.stringify(after)) {
        await this.d.audit.record(trx, {
          ...who,
          action: 'member.workspaces_changed',
          changes: diffFields({ workspace_ids: before }, { workspace_ids: after }),
        });
      }
      if (role !== user.role || JSON.stringify(before) !== JSON.stringify(after)) {
        await this.d.outbox.add(
          trx,
          'accounts.member_updated',
          { org_id: principal.orgId, user_id: id, role, workspace_ids: seesAllWorkspaces(role) ? null : after },
          { orgId: principal.orgId },
        );
      }
      return userJson(fresh, visibleIds(tokenScope(principal), after));
    });
  }

  /** Removes access: the row stays (history points at it), sessions and tokens end, the address is freed. */
  async remove(principal: Principal, id: string, actor: SignedInActor): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const user = await this.target(trx, principal.orgId, id);
      if (user.role === 'owner' && principal.role !== 'owner') throw forbidden('Only an owner can remove an owner');
      if (principal.workspaceIds) {
        if (seesAllWorkspaces(user.role))
          throw forbidden('A token limited to some workspaces cannot remove an owner or admin');
        assertWithinScope(
          principal.workspaceIds,
          null,
          (await workspaceIdsByUser(trx, principal.orgId, [user])).get(user.id) ?? [],
        );
      }
      if (await this.isLastOwner(trx, user)) throw lastOwner();
      await this.close(trx, user, 'member_removed');
      await this.d.audit.record(trx, {
        actor,
        action: 'member.removed',
        target: { type: 'user', id },
        metadata: { email: user.email, role: user.role },
      });
      await this.d.outbox.add(
        trx,
        'accounts.member_removed',
        { org_id: principal.orgId, user_id: id },
        { orgId: principal.orgId },
      );
    });
  }

  /**
   * Closes an account: the row stays (history points at it) but is removed and disabled, which
   * frees its address, and everything it holds ends (detach). The one way accounts are closed:
   * a member removed, or an address released to the organization that verified its domain.
   */
  async close(
    trx: Knex,
    user: { id: string; org_id: string; disabled_at: Date | null },
    reason: string,
  ): Promise<void> {
    await this.detach(trx, user, reason);
    const now = new Date();
    await UserModel.query(trx)
      .forOrg(user.org_id)
      .findById(user.id)
      .patch({ removed_at: now, disabled_at: user.disabled_at ?? now });
  }

  /** Ends everything a user holds in their organization: sessions, API tokens, emailed links, workspace grants. */
  async detach(trx: Knex, user: { id: string; org_id: string }, reason: string): Promise<void> {
    await this.d.sessionService.closeAllForUser(trx, user, reason);
    await this.d.tokenService.revokeAllOf(trx, user);
    await this.d.emailTokens.revokeAll(trx, user, ['magic_link', 'password_reset', 'verify_email']);
    await trx('user_workspaces').where({ user_id: user.id }).delete();
  }

  async isLastOwnerOf(trx: Knex, user: UserModel): Promise<boolean> {
    return this.isLastOwner(trx, user);
  }
}
