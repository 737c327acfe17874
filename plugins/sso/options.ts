import Joi from 'joi';

/** `config.plugins.sso.options`, documented in docs/sso.md. */
export interface SsoOptions {
  /** DNS servers for TXT verification (`host` or `host:port`); empty: the system's. */
  dnsServers: string[];
  dnsTimeoutMs: number;
  /** How long a started sign-in may take at the IdP. */
  signInTtlMinutes: number;
  /** How long a validated SAML sign-in waits for /v1/auth/sso/complete. */
  completeTtlSeconds: number;
  /** Dashboard pages the browser is sent to (paths on server.publicBaseUrl). */
  pages: { afterSignIn: string; signIn: string; confirm: string };
  recoveryCodeCount: number;
  /** Upper bound of governance min_approvers (Governance.max_min_approvers). */
  maxMinApprovers: number;
  /** Members listed in the members_outside_domains blocker (total counts them all). */
  blockerMembersLimit: number;
}

const path = () =>
  Joi.string()
    .pattern(/^\/(?![/\\])\S*$/)
    .max(200);

export const ssoOptionsSchema = Joi.object<SsoOptions>({
  dnsServers: Joi.array()
    .items(Joi.string().pattern(/^(\[[0-9a-fA-F:]+\]|[0-9a-fA-F:.]+)(:\d{1,5})?$/))
    .default([]),
  dnsTimeoutMs: Joi.number().integer().min(100).max(30_000).default(5000),
  signInTtlMinutes: Joi.number().integer().min(1).max(60).default(10),
  completeTtlSeconds: Joi.number().integer().min(10).max(600).default(120),
  pages: Joi.object({
    afterSignIn: path().default('/'),
    signIn: path().default('/login'),
    confirm: path().default('/sso/confirm'),
  }).default(),
  recoveryCodeCount: Joi.number().integer().min(4).max(20).default(10),
  maxMinApprovers: Joi.number().integer().min(1).max(20).default(5),
  blockerMembersLimit: Joi.number().integer().min(1).max(200).default(20),
});
