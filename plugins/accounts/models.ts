import { globalModel, tenantModel } from '../../core/data/model.js';
import type { Role } from '../../core/http/auth.js';

/** An organization is the tenant itself, so it is a global model. */
export class OrganizationModel extends globalModel({
  table: 'organizations',
  idPrefix: 'org',
  json: ['approval_roles'],
}) {
  declare name: string;
  declare slug: string;
  declare type: 'direct' | 'agency';
  declare plan: string;
  declare subscription_status: string;
  declare trial_ends_at: Date | null;
  declare current_period_end: Date | null;
  declare plan_activated_at: Date | null;
  declare billing_email: string | null;
  declare spend_cap_usd: number | string | null;
  declare show_engine_brand: boolean;
  declare patterns_opt_in: boolean;
  declare badge_removal_addon: boolean;
  declare overage_enabled: boolean;
  declare retention_days: number;
  declare signup_source: string;
  declare referral_code: string | null;
  declare referred_by_code: string | null;
  declare locale: string;
  declare sso_enforced: boolean;
  declare approval_min_approvers: number;
  declare approval_roles: Role[];
  declare payment_connect_account_id: string | null;
  declare connect_charges_enabled: boolean;
  declare demo_used_at: Date | null;
  declare updated_at: Date;
}

export class UserModel extends tenantModel({ table: 'users', idPrefix: 'usr' }) {
  declare email: string;
  declare name: string;
  declare role: Role;
  declare password_hash: string | null;
  declare email_verified_at: Date | null;
  declare code_host_login: string | null;
  declare locale: string;
  declare last_login_at: Date | null;
  declare disabled_at: Date | null;
  declare removed_at: Date | null;
  declare staff: boolean;
  declare updated_at: Date;
}

export class SessionModel extends tenantModel({ table: 'sessions', idPrefix: 'ses', updatedAt: false }) {
  declare user_id: string;
  declare token_hash: string;
  declare sso: boolean;
  declare ip: string | null;
  declare user_agent: string | null;
  declare last_seen_at: Date;
  declare idle_expires_at: Date;
  declare absolute_expires_at: Date;
  declare revoked_at: Date | null;
  declare revoked_reason: string | null;
}

export class ApiTokenModel extends tenantModel({ table: 'api_tokens', idPrefix: 'tok', json: ['workspace_ids'] }) {
  declare user_id: string;
  declare name: string;
  declare role: Role;
  declare workspace_ids: string[] | null;
  declare token_hash: string;
  declare last4: string;
  declare expires_at: Date;
  declare last_used_at: Date | null;
  declare revoked_at: Date | null;
  declare updated_at: Date;
}

export class InvitationModel extends tenantModel({ table: 'invitations', idPrefix: 'inv', json: ['workspace_ids'] }) {
  declare email: string;
  declare role: Role;
  declare workspace_ids: string[];
  declare token_hash: string;
  declare invited_by_user_id: string | null;
  declare expires_at: Date;
  declare accepted_at: Date | null;
  declare accepted_user_id: string | null;
  declare revoked_at: Date | null;
  declare updated_at: Date;
}

export type EmailTokenPurpose = 'magic_link' | 'password_reset' | 'verify_email';

export class EmailTokenModel extends tenantModel({ table: 'email_tokens', idPrefix: 'etk', updatedAt: false }) {
  declare user_id: string;
  declare purpose: EmailTokenPurpose;
  declare email: string;
  declare token_hash: string;
  declare redirect_to: string | null;
  declare expires_at: Date;
  declare used_at: Date | null;
}
