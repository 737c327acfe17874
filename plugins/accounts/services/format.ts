import type { OrganizationModel, UserModel, InvitationModel, ApiTokenModel } from '../models.js';
import type { Role } from '../../../core/http/auth.js';
import { iso } from '../../../core/http/times.js';

export interface UserJson {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role: Role;
  workspace_ids: string[];
  email_verified_at: string | null;
  code_host_login: string | null;
  locale: string;
  last_login_at: string | null;
  disabled_at: string | null;
  created_at: string;
  updated_at: string;
}

export function userJson(u: UserModel, workspaceIds: string[]): UserJson {
  return {
    id: u.id,
    org_id: u.org_id,
    email: u.email,
    name: u.name,
    role: u.role,
    workspace_ids: workspaceIds,
    email_verified_at: iso(u.email_verified_at),
    code_host_login: u.code_host_login ?? null,
    locale: u.locale,
    last_login_at: iso(u.last_login_at),
    disabled_at: iso(u.disabled_at),
    created_at: iso(u.created_at),
    updated_at: iso(u.updated_at),
  };
}

export type OrganizationJson = ReturnType<typeof organizationJson>;

export function organizationJson(o: OrganizationModel) {
  return {
    id: o.id,
    name: o.name,
    slug: o.slug,
    type: o.type,
    plan: o.plan,
    subscription_status: o.subscription_status,
    trial_ends_at: iso(o.trial_ends_at),
    current_period_end: iso(o.current_period_end),
    plan_activated_at: iso(o.plan_activated_at),
    billing_email: o.billing_email ?? null,
    spend_cap_usd: o.spend_cap_usd === null || o.spend_cap_usd === undefined ? null : Number(o.spend_cap_usd),
    show_engine_brand: o.show_engine_brand,
    patterns_opt_in: o.patterns_opt_in,
    badge_removal_addon: o.badge_removal_addon,
    overage_enabled: o.overage_enabled,
    retention_days: o.retention_days,
    signup_source: o.signup_source,
    referral_code: o.referral_code ?? null,
    locale: o.locale,
    sso_enforced: o.sso_enforced,
    approval_min_approvers: o.approval_min_approvers,
    approval_roles: o.approval_roles ?? [],
    payment_connect_account_id: o.payment_connect_account_id ?? null,
    connect_charges_enabled: o.connect_charges_enabled,
    demo_used_at: iso(o.demo_used_at),
    created_at: iso(o.created_at),
    updated_at: iso(o.updated_at),
  };
}

export interface WorkspaceRow {
  id: string;
  org_id: string;
  name: string;
  slug: string;
  client_name: string | null;
  execution_mode: string;
  autonomy: string;
  archived_at: Date | string | null;
}

export function workspaceSummaryJson(w: WorkspaceRow) {
  return {
    id: w.id,
    name: w.name,
    slug: w.slug,
    client_name: w.client_name ?? null,
    execution_mode: w.execution_mode,
    autonomy: w.autonomy,
    archived_at: iso(w.archived_at),
  };
}

export interface PersonRefJson {
  id: string;
  name: string;
  email: string;
}

export const personRef = (u: Pick<UserModel, 'id' | 'name' | 'email'>): PersonRefJson => ({
  id: u.id,
  name: u.name,
  email: u.email,
});

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export function invitationStatus(i: InvitationModel, now = new Date()): InvitationStatus {
  if (i.accepted_at) return 'accepted';
  if (i.revoked_at) return 'revoked';
  if (new Date(i.expires_at).getTime() <= now.getTime()) return 'expired';
  return 'pending';
}

export function invitationJson(i: InvitationModel, inviter: PersonRefJson | null) {
  return {
    id: i.id,
    org_id: i.org_id,
    email: i.email,
    role: i.role,
    workspace_ids: i.workspace_ids ?? [],
    status: invitationStatus(i),
    invited_by: inviter,
    expires_at: iso(i.expires_at),
    accepted_at: iso(i.accepted_at),
    revoked_at: iso(i.revoked_at),
    created_at: iso(i.created_at),
  };
}

export function apiTokenJson(t: ApiTokenModel, user: PersonRefJson) {
  return {
    id: t.id,
    org_id: t.org_id,
    name: t.name,
    role: t.role,
    workspace_ids: t.workspace_ids ?? null,
    user,
    last4: t.last4,
    expires_at: iso(t.expires_at),
    last_used_at: iso(t.last_used_at),
    created_at: iso(t.created_at),
  };
}
