import { tenantModel } from '../../core/data/model.js';
import type { Role } from '../../core/http/auth.js';

export type SsoProtocolName = 'oidc' | 'saml';

export class SsoConnectionModel extends tenantModel({ table: 'sso_connections', idPrefix: 'ssoc', json: ['domains'] }) {
  declare protocol: SsoProtocolName;
  declare name: string;
  declare issuer: string | null;
  declare client_id: string | null;
  declare client_secret_sealed: string | null;
  declare idp_sso_url: string | null;
  declare idp_cert: string | null;
  declare idp_metadata_xml: string | null;
  declare certificate_expires_at: Date | null;
  declare domains: string[];
  declare default_role: Extract<Role, 'admin' | 'reviewer'>;
  declare jit_enabled: boolean;
  declare last_login_at: Date | null;
  declare updated_at: Date;
}

export class SsoDomainModel extends tenantModel({ table: 'sso_domains', idPrefix: 'ssod' }) {
  declare domain: string;
  declare status: 'pending' | 'verified';
  declare txt_value: string;
  declare verified_at: Date | null;
  declare last_checked_at: Date | null;
  declare last_error: 'txt_missing' | 'txt_mismatch' | 'dns_error' | 'domain_taken' | null;
  declare updated_at: Date;
}

export class SsoIdentityModel extends tenantModel({ table: 'sso_identities', idPrefix: 'ssoi', updatedAt: false }) {
  declare connection_id: string;
  declare user_id: string;
  declare subject: string;
  declare email: string;
  declare last_login_at: Date | null;
}

export class SsoSignInModel extends tenantModel({ table: 'sso_sign_ins', idPrefix: 'ssos', updatedAt: false }) {
  declare connection_id: string;
  declare state_hash: string;
  declare browser_hash: string;
  declare pending_sealed: string;
  declare redirect_to: string | null;
  declare expires_at: Date;
  declare used_at: Date | null;
  declare complete_token_hash: string | null;
  declare user_id: string | null;
  declare complete_expires_at: Date | null;
  declare completed_at: Date | null;
}

export class SsoRecoveryCodeModel extends tenantModel({
  table: 'sso_recovery_codes',
  idPrefix: 'ssor',
  updatedAt: false,
}) {
  declare code_hash: string;
  declare generated_at: Date;
  declare used_at: Date | null;
  declare used_by_user_id: string | null;
}
