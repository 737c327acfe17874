import type { Knex } from 'knex';
import { userActor, type RequestDetails, type SsoIdentity } from '../../../core/contracts/index.js';
import { SsoConnectionModel, SsoDomainModel, SsoIdentityModel } from '../models.js';
import { emailDomain, type SsoDeps, type UserRow } from './deps.js';
import { SsoFailure } from './sso-failure.js';

/**
 * The user an identity signs in as: the linked one; else a member with the same verified
 * address in one of the connection's verified domains (linked now); else a new member with
 * the connection's default role when JIT provisioning is on.
 */
export async function provisionUser(
  d: SsoDeps,
  trx: Knex,
  conn: SsoConnectionModel,
  identity: SsoIdentity,
  from?: RequestDetails,
): Promise<UserRow> {
  const now = new Date();
  const link = await SsoIdentityModel.query(trx)
    .forOrg(conn.org_id)
    .where({ connection_id: conn.id, subject: identity.subject })
    .limit(1)
    .first();
  let user: UserRow | undefined;
  if (link) {
    user = (await trx('users').where({ id: link.user_id, org_id: conn.org_id }).whereNull('removed_at').first()) as
      UserRow | undefined;
    if (!user) throw new SsoFailure('account_disabled', 'the linked account is closed');
    await SsoIdentityModel.query(trx)
      .forOrg(conn.org_id)
      .findById(link.id)
      .patch({ last_login_at: now, email: identity.email });
  } else {
    const domain = emailDomain(identity.email);
    const verified = await SsoDomainModel.query(trx)
      .forOrg(conn.org_id)
      .where({ domain, status: 'verified' })
      .limit(1)
      .first();
    if (!verified || !(conn.domains ?? []).includes(domain))
      throw new SsoFailure('domain_not_allowed', `${domain} is not a verified domain of this connection`);
    if (!identity.emailVerified)
      throw new SsoFailure('email_not_verified', 'the identity provider has not verified this address');
    user = await memberFor(d, trx, conn, identity);
    await SsoIdentityModel.query(trx).insert({
      org_id: conn.org_id,
      connection_id: conn.id,
      user_id: user.id,
      subject: identity.subject,
      email: identity.email,
      last_login_at: now,
    });
    await d.audit.record(trx, {
      actor: userActor(user, from),
      action: 'sso.account_linked',
      target: { type: 'user', id: user.id },
      metadata: { connection_id: conn.id, subject: identity.subject },
    });
  }
  if (user.disabled_at) throw new SsoFailure('account_disabled', 'this account is disabled');
  await SsoConnectionModel.query(trx).forOrg(conn.org_id).findById(conn.id).patch({ last_login_at: now });
  return user;
}

/**
 * The member an identity's address belongs to, through the accounts service (address
 * normalisation, verification, audit and `accounts.member_joined` in one place): the existing
 * account of this organization, else a new one with the connection's default role when JIT
 * provisioning is on. `sso.member_provisioned` stays this plugin's event.
 */
async function memberFor(d: SsoDeps, trx: Knex, conn: SsoConnectionModel, identity: SsoIdentity): Promise<UserRow> {
  let found;
  try {
    found = await d.authService.memberFor(trx, {
      orgId: conn.org_id,
      email: identity.email,
      name: identity.name ?? null,
      role: conn.default_role,
      emailVerified: identity.emailVerified,
      create: conn.jit_enabled,
      via: 'sso',
      metadata: { connection_id: conn.id },
    });
  } catch (err) {
    if ((err as { data?: { code?: string } }).data?.code === 'email_taken')
      throw new SsoFailure('email_taken', 'this address belongs to an account of another organization');
    throw err;
  }
  if (!found)
    throw new SsoFailure('not_provisioned', 'you have no account here yet; ask an administrator to invite you');
  if (found.created)
    await d.outbox.add(
      trx,
      'sso.member_provisioned',
      { org_id: conn.org_id, user_id: found.user.id, role: found.user.role, connection_id: conn.id },
      { orgId: conn.org_id },
    );
  return found.user;
}
