import Joi from 'joi';

/** `config.plugins.accounts.options`, documented in docs/accounts.md. */
export interface AccountsOptions {
  /** Addresses that get the staff flag (besides users.staff set in the database). */
  staffEmails: string[];
  /** Whether signup answers email_verification_required true for an unverified address. */
  requireEmailVerification: boolean;
  session: {
    /** Sliding idle lifetime. */
    idleMinutes: number;
    /** Absolute lifetime from sign-in. */
    absoluteMinutes: number;
    /** A session's last_seen_at is written at most this often. */
    touchSeconds: number;
  };
  throttle: {
    windowMinutes: number;
    /** Failed sign-ins per address from one client address, per window (the attacker's own guesses). */
    loginPerAddressAndIp: number;
    /** Failed sign-ins per client address per window, whatever the addresses. */
    loginPerIp: number;
    /** Failed sign-ins per address from all clients, per addressWindowMinutes; past it only known networks may try. */
    loginPerAddress: number;
    addressWindowMinutes: number;
    /** A network (IPv4 /24, IPv6 /64) the account opened a session from within this many days is known. */
    knownNetworkDays: number;
    /** Magic-link and reset requests per address per window (answers stay {sent:true} until the limit). */
    mailPerAddress: number;
    mailPerIp: number;
    signupPerIp: number;
    /** Verification resends per user per window. */
    resendPerUser: number;
  };
  /** Magic-link and reset requests answer no sooner than this, whether or not the address exists. */
  uniformAnswerMs: number;
  tokens: { defaultDays: number; maxDays: number };
  /** Credentials that authenticated recently, kept per API process (services/credential-cache.ts); ttlSeconds 0 turns it off. */
  credentialCache: { ttlSeconds: number; maxEntries: number };
}

const int = (min: number, def: number) => Joi.number().integer().min(min).default(def);

export const accountsOptionsSchema = Joi.object<AccountsOptions>({
  staffEmails: Joi.array()
    .items(Joi.string().lowercase().email({ tlds: false }))
    .default([]),
  requireEmailVerification: Joi.boolean().default(true),
  session: Joi.object({
    idleMinutes: int(1, 7 * 24 * 60),
    absoluteMinutes: int(1, 30 * 24 * 60),
    touchSeconds: int(0, 60),
  }).default(),
  throttle: Joi.object({
    windowMinutes: int(1, 15),
    loginPerAddressAndIp: int(1, 10),
    loginPerIp: int(1, 50),
    loginPerAddress: int(1, 100),
    addressWindowMinutes: int(1, 60),
    knownNetworkDays: int(1, 90),
    mailPerAddress: int(1, 5),
    mailPerIp: int(1, 30),
    signupPerIp: int(1, 20),
    resendPerUser: int(1, 5),
  }).default(),
  uniformAnswerMs: int(0, 250),
  tokens: Joi.object({ defaultDays: int(1, 90), maxDays: int(1, 730) }).default(),
  credentialCache: Joi.object({
    ttlSeconds: Joi.number().integer().min(0).max(300).default(10),
    maxEntries: int(1, 10_000),
  }).default(),
});
