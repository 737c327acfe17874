import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { requestDetails, userActor, type SignedInActor } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, httpError, rateLimited } from '../../../core/http/errors.js';
import { hashToken } from '../../../core/security/tokens.js';
import { newId } from '../../../core/data/ids.js';
import { iso } from '../../../core/http/times.js';
import { SsoRecoveryCodeModel } from '../models.js';
import type { ConnectionService } from './connections.js';
import {
  emailDomain,
  hasPlanFeature,
  loadOrg,
  type OrgRow,
  type RequestLike,
  type SsoDeps,
  type UserRow,
} from './deps.js';
import type { DomainService } from './domains.js';

type BlockerCode =
  'plan' | 'no_connection' | 'members_outside_domains' | 'not_signed_in_with_sso' | 'no_owner_with_password';
export interface Blocker {
  code: BlockerCode;
  members?: Array<{ id: string; email: string; name: string; role: string }>;
  total?: number;
}

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
const MINUTE = 60_000;

/** A recovery code: 60 random bits as `xxxx-xxxx-xxxx` (Crockford base32, no look-alikes). */
function newCode(): string {
  const bytes = randomBytes(12);
  const chars = [...bytes].map((b) => ALPHABET[b & 31]).join('');
  return `${chars.slice(0, 4)}-${chars.slice(4, 8)}-${chars.slice(8, 12)}`;
}

/** Typed codes are compared without dashes, spaces or case. */
export const normalizeCode = (code: string): string =>
  code.toLowerCase().replace(/[\s-]/g, '').replace(/[il]/g, '1').replace(/o/g, '0');

const invalidCredentials = () =>
  httpError(401, 'invalid_credentials', 'The email address, the password or the recovery code is wrong');

/** Enforcement of single sign-on, its blockers, recovery codes and the break-glass sign-in. */
export class EnforcementService {
  constructor(private readonly d: SsoDeps & { ssoConnections: ConnectionService; ssoDomains: DomainService }) {}

  async blockers(db: Knex, org: OrgRow, principal: Pick<Principal, 'sso'>): Promise<Blocker[]> {
    const out: Blocker[] = [];
    if (!hasPlanFeature(this.d, org, 'sso')) out.push({ code: 'plan' });
    const verified = new Set(
      (
        (await db('sso_domains').select('domain').where({ org_id: org.id, status: 'verified' })) as Array<{
          domain: string;
        }>
      ).map((r) => r.domain),
    );
    const conns = await this.d.ssoConnections.listModels(db, org.id);
    if (!conns.some((c) => (c.domains ?? []).some((x) => verified.has(x)))) out.push({ code: 'no_connection' });

    const members = (await db('users')
      .select('id', 'email', 'name', 'role', 'password_hash')
      .where({ org_id: org.id })
      .whereNull('removed_at')
      .whereNull('disabled_at')
      .orderBy([{ column: 'created_at' }, { column: 'id' }])) as UserRow[];
    const outside = members.filter((m) => !verified.has(emailDomain(m.email)));
    if (outside.length) {
      out.push({
        code: 'members_outside_domains',
        members: outside
          .slice(0, this.d.ssoOptions.blockerMembersLimit)
          .map((m) => ({ id: m.id, email: m.email, name: m.name, role: m.role })),
        total: outside.length,
      });
    }
    if (principal.sso !== true) out.push({ code: 'not_signed_in_with_sso' });
    if (!members.some((m) => m.role === 'owner' && m.password_hash)) out.push({ code: 'no_owner_with_password' });
    return out;
  }

  async recoveryState(db: Knex, orgId: string): Promise<{ remaining: number; generated_at: string | null }> {
    const rows = await SsoRecoveryCodeModel.query(db).forOrg(orgId).select('generated_at', 'used_at');
    return {
      remaining: rows.filter((r) => !r.used_at).length,
      generated_at: rows.length ? iso(rows[0].generated_at) : null,
    };
  }

  async overview(db: Knex, principal: Principal) {
    const org = await loadOrg(db, principal.orgId);
    const conns = await this.d.ssoConnections.listModels(db, org.id);
    const domains = await this.d.ssoDomains.listModels(db, org.id);
    const blockers = await this.blockers(db, org, principal);
    return {
      available: hasPlanFeature(this.d, org, 'sso'),
      enforced: org.sso_enforced,
      connections: await this.d.ssoConnections.json(db, org, conns),
      domains: domains.map((x) => this.d.ssoDomains.json(x, conns)),
      enforcement: { can_enable: blockers.length === 0, blockers },
      recovery_codes: await this.recoveryState(db, org.id),
      session_sso: principal.sso === true,
    };
  }

  /** Replaces the organization's codes as a set; answers them in clear, once. */
  private async replaceCodes(trx: Knex, orgId: string): Promise<{ codes: string[]; generated_at: string }> {
    const now = new Date();
    const codes = Array.from({ length: this.d.ssoOptions.recoveryCodeCount }, newCode);
    await SsoRecoveryCodeModel.query(trx).forOrg(orgId).delete();
    await trx('sso_recovery_codes').insert(
      codes.map((c) => ({
        id: newId('ssor'),
        org_id: orgId,
        code_hash: hashToken(normalizeCode(c)),
        generated_at: now,
        created_at: now,
      })),
    );
    return { codes, generated_at: now.toISOString() };
  }

  async setEnforced(principal: Principal, enforced: boolean, actor: SignedInActor) {
    return this.d.db.transaction(async (trx) => {
      const org = await loadOrg(trx, principal.orgId);
      let recovery: { codes: string[]; generated_at: string | null };
      if (enforced) {
        const blockers = await this.blockers(trx, org, principal);
        if (blockers.length)
          throw conflict('enforcement_blocked', 'Single sign-on cannot be required yet', { blockers });
        recovery = await this.replaceCodes(trx, org.id);
        if (!org.sso_enforced) {
          // Password sessions of other members end: from now on they sign in with single sign-on.
          await trx('sessions')
            .where({ org_id: org.id, sso: false })
            .whereNot('user_id', principal.userId ?? '')
            .whereNull('revoked_at')
            .update({ revoked_at: new Date(), revoked_reason: 'sso_enforced' });
        }
      } else {
        recovery = { codes: [], generated_at: (await this.recoveryState(trx, org.id)).generated_at };
      }
      if (org.sso_enforced !== enforced) {
        await trx('organizations').where({ id: org.id }).update({ sso_enforced: enforced, updated_at: new Date() });
        await this.d.audit.record(trx, {
          actor,
          action: 'sso.enforcement_changed',
          target: { type: 'organization', id: org.id },
          changes: { sso_enforced: { before: org.sso_enforced, after: enforced } },
        });
        await this.d.outbox.add(trx, 'sso.enforcement_changed', { org_id: org.id, enforced }, { orgId: org.id });
      }
      if (enforced) await this.auditCodesGenerated(trx, org.id, actor, recovery.codes.length);
      return { sso: await this.overview(trx, principal), recovery_codes: recovery };
    });
  }

  async regenerate(principal: Principal, actor: SignedInActor) {
    return this.d.db.transaction(async (trx) => {
      const result = await this.replaceCodes(trx, principal.orgId);
      await this.auditCodesGenerated(trx, principal.orgId, actor, result.codes.length);
      return result;
    });
  }

  /** A new set of recovery codes (enforcing, or regenerating): the entry counts them, never shows them. */
  private async auditCodesGenerated(trx: Knex, orgId: string, actor: SignedInActor, count: number): Promise<void> {
    await this.d.audit.record(trx, {
      actor,
      action: 'sso.recovery_codes_generated',
      target: { type: 'organization', id: orgId },
      metadata: { count },
    });
  }

  /**
   * Break-glass: an owner signs in with email, password and one recovery code while single
   * sign-on is required. Any wrong part answers the same 401; the code is spent only on success.
   */
  async recover(
    input: { email: string; password: string; code: string },
    call: { request: RequestLike; currentCookie: string | null },
  ) {
    const from = requestDetails(call.request, this.d.config.server.trustProxy);
    const ip = from.ip ?? call.request.info.remoteAddress;
    // Counted with the password sign-in (a guess is a guess, through either door), per address and
    // client, so that nobody can lock an owner out of the break-glass sign-in (docs/security.md).
    const ipKey = `sso-recovery:ip:${ip}`;
    const peek = await this.d.rateLimiter.peek(ipKey, 20, 15 * MINUTE);
    if (!peek.allowed) throw rateLimited(peek.retryAfterSeconds, 'Too many recovery attempts; retry later');
    const user = (await this.d.db('users').where({ email: input.email }).whereNull('removed_at').first()) as
      UserRow | undefined;
    await this.d.loginThrottle.admit('login', input.email, ip, user ?? null);
    const failed = async () => {
      await this.d.rateLimiter.hit(ipKey, 20, 15 * MINUTE);
      await this.d.loginThrottle.failed('login', input.email, ip);
      return invalidCredentials();
    };
    const passwordOk = await this.d.passwords.verify(input.password, user?.password_hash ?? null);
    if (!user || !passwordOk || user.role !== 'owner' || user.disabled_at) throw await failed();
    const org = await loadOrg(this.d.db, user.org_id);
    if (!org.sso_enforced)
      throw conflict(
        'sso_not_enforced',
        'Single sign-on is not required for your organization; sign in with your password',
      );

    const signedIn = await this.d.db.transaction(async (trx) => {
      const spent = (await trx('sso_recovery_codes')
        .where({ org_id: org.id, code_hash: hashToken(normalizeCode(input.code)) })
        .whereNull('used_at')
        .update({ used_at: new Date(), used_by_user_id: user.id })
        .returning('id')) as unknown[];
      if (spent.length !== 1) return null;
      const result = await this.d.authService.signIn(trx, user, call, false);
      await this.d.audit.record(trx, {
        actor: userActor(user, from),
        action: 'sso.recovery_code_used',
        target: { type: 'user', id: user.id },
        metadata: { remaining: (await this.recoveryState(trx, org.id)).remaining },
      });
      return result;
    });
    if (!signedIn) throw await failed();
    await this.d.loginThrottle.succeeded('login', input.email, ip);
    return signedIn;
  }
}
