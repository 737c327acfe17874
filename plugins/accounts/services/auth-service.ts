import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { Role } from '../../../core/http/auth.js';
import { conflict, httpError } from '../../../core/http/errors.js';
import { OrganizationModel, UserModel } from '../models.js';
import type { AccountsDeps } from './deps.js';
import type { AuthContextJson } from './auth-context.js';
import {
  requestDetails,
  systemActor,
  userActor,
  type ClientRequest,
  type RequestDetails,
} from '../../../core/contracts/index.js';
import type { OpenedSession } from './session-service.js';
import type { EmailLinkService } from './email-link-service.js';
import type { AppConfig } from '../../../core/kernel/config.js';
import { slugify } from '../../../core/data/slug.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

export interface SignedIn {
  context: AuthContextJson;
  /** New session cookie value, or null when the current session goes on. */
  token: string | null;
}

export interface CallInfo {
  request: ClientRequest;
  /** The pw_session cookie the request carried (closed on sign-in: rotation). */
  currentCookie: string | null;
}

export interface SignupInput {
  name: string;
  email: string;
  password: string;
  organization_name: string;
  organization_type?: 'direct' | 'agency';
  locale?: 'en' | 'it';
  referral_code?: string;
  accept_terms: true;
}

/** What another plugin (sso JIT provisioning) asks of `memberFor`. */
export interface MemberForInput {
  orgId: string;
  email: string;
  /** Display name of a new account (default: the address's local part). */
  name?: string | null;
  /** Role of a new account. */
  role: Role;
  /** The caller has verified the address (e.g. an identity provider's email_verified): the account's address counts as verified. */
  emailVerified: boolean;
  /** false: find only (null when the address has no account). */
  create: boolean;
  /** How the member arrived, in the audit entry and the `accounts.member_joined` event (e.g. `sso`). */
  via: string;
  /** Extra audit metadata of a new member (e.g. the SSO connection). */
  metadata?: Record<string, unknown>;
}

const MINUTE = 60_000;
/** The one form of an address the users table keeps. */
export const normalizeEmail = (email: string): string => email.trim().toLowerCase();
const invalidCredentials = () => httpError(401, 'invalid_credentials', 'The email address or the password is wrong');
const ssoRequired = () => httpError(403, 'sso_required', 'Your organization signs in with single sign-on');

/** The caller's address under the configured trust rule (throttle keys). */
export function callerIp(request: ClientRequest, trustProxy: AppConfig['server']['trustProxy']): string {
  return requestDetails(request, trustProxy).ip ?? request.info.remoteAddress;
}

/** Password and emailed-link sign-in are replaced by single sign-on where it is enforced. */
export async function assertPasswordSignIn(db: Knex, user: UserModel): Promise<void> {
  const org = await OrganizationModel.query(db).findById(user.org_id);
  if (org?.sso_enforced) throw ssoRequired();
}

const REF_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
export function referralCode(): string {
  return [...randomBytes(8)].map((b) => REF_ALPHABET[b % REF_ALPHABET.length]).join('');
}

/**
 * Sign-in flows: signup, password login, and the session a signed-in flow opens (also for the
 * emailed links of EmailLinkService, invitations and single sign-on). Each answers the AuthContext
 * through the one builder; sessions are opened through SessionService. Also the member lookups
 * other plugins share (by address, JIT provisioning, code-host login).
 */
export class AuthService {
  constructor(private readonly d: AccountsDeps & { emailLinkService: EmailLinkService }) {}

  /** Where the call came from, under the configured trust rule (throttle keys and audit entries). */
  private from(request: ClientRequest): RequestDetails {
    return requestDetails(request, this.d.config.server.trustProxy);
  }

  /** Active (not removed) user by address, across organizations: an address has one account. */
  async findByEmail(db: Knex, email: string): Promise<UserModel | undefined> {
    return UserModel.query(db)
      .acrossOrgs('sign-in by email address')
      .where('email', email.toLowerCase())
      .whereNull('removed_at')
      .limit(1)
      .first();
  }

  /**
   * The account of `email` as a member of `orgId`, in `trx`: the existing one, or (with `create`) a
   * new member with `role`, audited (`member.provisioned`, actor system) and announced
   * (`accounts.member_joined`). 409 email_taken when the address belongs to another
   * organization (an address has one account); null when there is none and `create` is false.
   * Used by single sign-on (JIT provisioning), so the accounts rules hold in one place.
   */
  async memberFor(trx: Knex, input: MemberForInput): Promise<{ user: UserModel; created: boolean } | null> {
    const email = normalizeEmail(input.email);
    const taken = () => conflict('email_taken', 'This email address belongs to an account of another organization');
    const found = await this.findByEmail(trx, email);
    if (found && found.org_id !== input.orgId) throw taken();
    const now = new Date();
    if (found) {
      if (input.emailVerified && !found.email_verified_at) {
        await UserModel.query(trx).forOrg(found.org_id).findById(found.id).patch({ email_verified_at: now });
        found.email_verified_at = now;
      }
      return { user: found, created: false };
    }
    if (!input.create) return null;
    const org = await OrganizationModel.query(trx).findById(input.orgId);
    if (!org) throw new Error(`organization ${input.orgId} is missing`);
    const user = await trx
      .transaction(async (sp) =>
        UserModel.query(sp).insert({
          org_id: input.orgId,
          email,
          name: input.name?.trim() || email.slice(0, email.indexOf('@')),
          role: input.role,
          password_hash: null,
          email_verified_at: input.emailVerified ? now : null,
          locale: org.locale === 'it' ? 'it' : 'en',
          staff: false,
        }),
      )
      .catch((err: unknown) => {
        if (isUniqueViolation(err, /users_email/)) throw taken();
        throw err;
      });
    await this.d.audit.record(trx, {
      orgId: input.orgId,
      actor: systemActor('accounts', input.orgId),
      action: 'member.provisioned',
      target: { type: 'user', id: user.id },
      metadata: { via: input.via, ...input.metadata, email, role: user.role },
    });
    await this.d.outbox.add(
      trx,
      'accounts.member_joined',
      { org_id: input.orgId, user_id: user.id, role: user.role, via: input.via },
      { orgId: input.orgId },
    );
    return { user: (await UserModel.query(trx).forOrg(input.orgId).findById(user.id))!, created: true };
  }

  /**
   * Links a code-host login to a member (users.code_host_login), in `trx`: one member per login in
   * an organization (compared without case), so another member holding it loses it.
   */
  async setCodeHostLogin(trx: Knex, user: { id: string; org_id: string }, login: string): Promise<void> {
    await UserModel.query(trx)
      .forOrg(user.org_id)
      .whereNot('id', user.id)
      .whereRaw('lower(code_host_login) = ?', [login.toLowerCase()])
      .patch({ code_host_login: null });
    await UserModel.query(trx).forOrg(user.org_id).findById(user.id).patch({ code_host_login: login });
  }

  /** Opens a session (closing the one the request carried) and builds the answer, in `trx`. */
  async signIn(trx: Knex, user: UserModel, call: CallInfo, sso = false): Promise<SignedIn & { opened: OpenedSession }> {
    await this.d.sessionService.closeByToken(trx, call.currentCookie, 'rotated');
    const opened = await this.d.sessionService.open(trx, user, { sso, request: call.request });
    const context = await this.d.authContextBuilder.build(trx, user, this.d.sessionService.info(opened.session));
    return { context, token: opened.token, opened };
  }

  async signup(input: SignupInput, call: CallInfo): Promise<SignedIn & { emailVerificationRequired: boolean }> {
    const { throttle } = this.d.accountsOptions;
    await this.d.rateLimiter.consume(
      `signup:ip:${callerIp(call.request, this.d.config.server.trustProxy)}`,
      throttle.signupPerIp,
      60 * MINUTE,
      'Too many signups from this address; retry later',
    );
    const email = input.email.toLowerCase();
    if (await this.findByEmail(this.d.db, email))
      throw conflict('email_taken', 'An account with this email address exists; sign in instead');
    const passwordHash = await this.d.passwords.hash(input.password);
    const locale = input.locale ?? 'en';

    const result = await this.d.db
      .transaction(async (trx) => {
        const org = await OrganizationModel.query(trx).insert({
          name: input.organization_name,
          slug: await this.freeSlug(trx, input.organization_name),
          type: input.organization_type ?? 'direct',
          billing_email: email,
          signup_source: input.referral_code ? 'referral' : 'direct',
          referral_code: referralCode(),
          referred_by_code: input.referral_code ?? null,
          locale,
          approval_roles: ['owner', 'admin'],
        });
        const user = await UserModel.query(trx).insert({
          org_id: org.id,
          email,
          name: input.name,
          role: 'owner',
          password_hash: passwordHash,
          locale,
          staff: false,
        });
        await this.d.emailLinkService.sendVerification(trx, user);
        const signedIn = await this.signIn(trx, user, call);
        await this.d.audit.record(trx, {
          actor: userActor(user, this.from(call.request)),
          action: 'organization.created',
          target: { type: 'organization', id: org.id },
          metadata: { name: org.name, type: org.type },
        });
        await this.d.outbox.add(
          trx,
          'accounts.organization_created',
          {
            org_id: org.id,
            owner_user_id: user.id,
            type: org.type,
            signup_source: org.signup_source,
            referred_by_code: org.referred_by_code,
          },
          { orgId: org.id },
        );
        await this.d.outbox.add(
          trx,
          'accounts.member_joined',
          { org_id: org.id, user_id: user.id, role: user.role, via: 'signup' },
          { orgId: org.id },
        );
        return signedIn;
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err, /users_email/))
          throw conflict('email_taken', 'An account with this email address exists; sign in instead');
        throw err;
      });
    return {
      ...result,
      emailVerificationRequired:
        this.d.accountsOptions.requireEmailVerification && !result.context.user.email_verified_at,
    };
  }

  private async freeSlug(trx: Knex, name: string): Promise<string> {
    const base = slugify(name, 'org');
    for (let i = 0; i < 5; i++) {
      const slug = i === 0 ? base : `${base.slice(0, 34)}-${referralCode().slice(0, 5)}`;
      if (!(await OrganizationModel.query(trx).where('slug', slug).limit(1).first())) return slug;
    }
    return `${base.slice(0, 30)}-${referralCode()}`;
  }

  async login(email: string, password: string, call: CallInfo): Promise<SignedIn> {
    const ip = callerIp(call.request, this.d.config.server.trustProxy);
    const user = await this.findByEmail(this.d.db, email);
    // Throttled per address and client, per client, and per address with known networks let through (login-throttle.ts).
    await this.d.loginThrottle.admit('login', email, ip, user ?? null);
    const ok = await this.d.passwords.verify(password, user?.password_hash ?? null);
    if (!user || !ok) {
      await this.d.loginThrottle.failed('login', email, ip);
      throw invalidCredentials();
    }
    if (user.disabled_at)
      throw httpError(403, 'account_disabled', 'This account is disabled; ask an administrator of your organization');
    await assertPasswordSignIn(this.d.db, user);
    await this.d.loginThrottle.succeeded('login', email, ip);

    return this.d.db.transaction(async (trx) => {
      if (this.d.passwords.needsRehash(user.password_hash!)) {
        await UserModel.query(trx)
          .forOrg(user.org_id)
          .findById(user.id)
          .patch({ password_hash: await this.d.passwords.hash(password) });
      }
      return this.signIn(trx, user, call);
    });
  }
}
