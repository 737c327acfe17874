import type { Knex } from 'knex';
import type { Principal, Role } from '../../../core/http/auth.js';
import { forbidden, notFound, unauthenticated } from '../../../core/http/errors.js';
import { paginate, type Page } from '../../../core/http/pagination.js';
import { hashToken, newToken } from '../../../core/security/tokens.js';
import { forOrg, run } from '../../../core/data/statements.js';
import { ApiTokenModel, UserModel } from '../models.js';
import { ROLE_RANK, checkWorkspaceIds, invalidField, lowerRole, seesAllWorkspaces } from './access.js';
import type { AccountsDeps } from './deps.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { apiTokenJson, personRef } from './format.js';

const TOKEN_USED = forOrg('update api_tokens set last_used_at = $3 where org_id = $1 and id = $2');

const DAY = 86_400_000;

export interface CreateTokenInput {
  name: string;
  role: Role;
  workspace_ids?: string[] | null;
  expires_at?: string | Date | null;
}

/**
 * API tokens (`pwt_…`, shown once, stored as SHA-256). A token acts for its creator with its own
 * role, never above the creator's current role, and within its workspaces (if it names any) and
 * the creator's. A token that creates a token passes on no more than itself: the new one's role,
 * workspaces and expiry are within its own (omitted workspace_ids means its own list).
 */
export class TokenService {
  constructor(private readonly d: AccountsDeps) {}

  async list(
    principal: Principal,
    opts: { cursor?: string; limit?: number },
  ): Promise<Page<ReturnType<typeof apiTokenJson>>> {
    const q = this.d
      .db('api_tokens')
      .join('users', 'users.id', 'api_tokens.user_id')
      .select('api_tokens.*', 'users.name as user_name', 'users.email as user_email')
      .where('api_tokens.org_id', principal.orgId)
      .whereNull('api_tokens.revoked_at');
    // Owners and admins see every token of the organization; others their own.
    if (!seesAllWorkspaces(principal.role)) q.where('api_tokens.user_id', principal.userId ?? '');
    const page = await paginate<Record<string, unknown>>(
      q,
      [
        { column: 'api_tokens.created_at', direction: 'desc', type: 'date' },
        { column: 'api_tokens.id', direction: 'desc' },
      ],
      opts,
    );
    return {
      items: page.items.map((row) => {
        const t = ApiTokenModel.fromDatabaseJson(row);
        return apiTokenJson(t, { id: t.user_id, name: String(row.user_name), email: String(row.user_email) });
      }),
      next_cursor: page.next_cursor,
    };
  }

  async create(
    principal: Principal,
    input: CreateTokenInput,
    actor: SignedInActor,
  ): Promise<ReturnType<typeof apiTokenJson> & { token: string }> {
    if (!principal.userId) throw forbidden('Only a person can create tokens');
    if (ROLE_RANK[input.role] > ROLE_RANK[principal.role])
      throw forbidden(`A token cannot have a higher role than yours (${principal.role})`);
    const { defaultDays, maxDays } = this.d.accountsOptions.tokens;
    const now = Date.now();
    // A token that creates a token passes on at most itself: its scope and its lifetime (docs/security.md).
    const parent = principal.kind === 'token' ? await this.parentToken(principal) : null;
    const latest = Math.min(now + maxDays * DAY, parent ? new Date(parent.expires_at).getTime() : Infinity);
    const expiresAt = input.expires_at
      ? new Date(input.expires_at)
      : new Date(Math.min(now + defaultDays * DAY, latest));
    if (expiresAt.getTime() <= now || expiresAt.getTime() > latest) {
      const limit = parent
        ? `no later than the token that creates it (${new Date(parent.expires_at).toISOString()})`
        : `at most ${maxDays} days away`;
      throw invalidField('payload.expires_at', `expires_at must be in the future and ${limit}`);
    }
    let workspaceIds: string[] | null = null;
    if (input.workspace_ids) {
      workspaceIds = await checkWorkspaceIds(this.d.db, principal.orgId, input.workspace_ids);
      const mine = principal.workspaceIds;
      if (mine && workspaceIds.some((id) => !mine.includes(id)))
        throw forbidden('A token cannot open workspaces you cannot open');
    } else if (parent?.workspace_ids) {
      // No list asked for: a scoped token's token gets its scope (what of it still exists), never "every workspace".
      const rows = (await this.d
        .db('workspaces')
        .select('id')
        .where('org_id', principal.orgId)
        .whereIn('id', parent.workspace_ids)) as { id: string }[];
      workspaceIds = rows.map((r) => r.id).sort();
    }
    const { token, hash } = newToken('pwt');
    return this.d.db.transaction(async (trx) => {
      const user = await UserModel.query(trx).forOrg(principal.orgId).findById(principal.userId!);
      if (!user) throw unauthenticated();
      const row = await ApiTokenModel.query(trx).insert({
        org_id: principal.orgId,
        user_id: user.id,
        name: input.name,
        role: input.role,
        workspace_ids: workspaceIds,
        token_hash: hash,
        last4: token.slice(-4),
        expires_at: expiresAt,
      });
      await this.d.audit.record(trx, {
        actor,
        action: 'token.created',
        target: { type: 'api_token', id: row.id },
        metadata: { name: row.name, role: row.role, workspace_ids: workspaceIds, expires_at: expiresAt.toISOString() },
      });
      return { ...apiTokenJson(row, personRef(user)), token };
    });
  }

  /** The live token a token principal authenticated with (it was checked moments ago: gone now means revoked meanwhile). */
  private async parentToken(principal: Principal): Promise<ApiTokenModel> {
    const row = principal.tokenId
      ? await ApiTokenModel.query(this.d.db).forOrg(principal.orgId).findById(principal.tokenId).whereNull('revoked_at')
      : undefined;
    if (!row) throw unauthenticated('The API token is not valid');
    return row;
  }

  async revoke(principal: Principal, id: string, actor: SignedInActor): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const row = await ApiTokenModel.query(trx).forOrg(principal.orgId).findById(id).whereNull('revoked_at');
      if (!row) throw notFound('token');
      if (!seesAllWorkspaces(principal.role) && row.user_id !== principal.userId) throw notFound('token');
      await ApiTokenModel.query(trx).forOrg(principal.orgId).findById(id).patch({ revoked_at: new Date() });
      await this.d.audit.record(trx, {
        actor,
        action: 'token.revoked',
        target: { type: 'api_token', id },
        metadata: { name: row.name },
      });
    });
  }

  /** Revokes every token a user created (member removal, moving to another organization). */
  async revokeAllOf(trx: Knex, user: { id: string; org_id: string }): Promise<void> {
    await ApiTokenModel.query(trx)
      .forOrg(user.org_id)
      .where('user_id', user.id)
      .whereNull('revoked_at')
      .patch({ revoked_at: new Date() });
  }

  /** The Principal of a `pwt_` bearer token, or 401. Writes last_used_at at most once a minute. */
  async authenticate(token: string): Promise<Principal> {
    const found = token.length <= 100 ? await this.d.credentials.find('api_tokens', hashToken(token)) : null;
    const row = found ? ApiTokenModel.fromDatabaseJson(found.credential) : undefined;
    const now = new Date();
    if (!found || !row || row.revoked_at || new Date(row.expires_at).getTime() <= now.getTime())
      throw unauthenticated('The API token is not valid');
    const { user } = found;
    if (user.removed_at || user.disabled_at) throw unauthenticated('The API token is not valid');
    if (!row.last_used_at || now.getTime() - new Date(row.last_used_at).getTime() >= 60_000) {
      // Outside knex: using a token is not a change of it (it would empty the credential cache).
      await run(this.d.db, TOKEN_USED, [row.org_id, row.id, now]);
      found.credential.last_used_at = now;
    }
    const role = lowerRole(row.role, user.role);
    // The creator's own access bounds the token's.
    const own = user.workspace_ids;
    const workspaceIds = row.workspace_ids
      ? own
        ? row.workspace_ids.filter((id) => own.includes(id))
        : row.workspace_ids
      : own;
    return {
      kind: 'token',
      userId: user.id,
      orgId: user.org_id,
      role,
      staff: false,
      email: user.email,
      locale: user.locale,
      workspaceIds,
      tokenId: row.id,
    };
  }
}
