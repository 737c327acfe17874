import { isIP } from 'node:net';
import type { Knex } from 'knex';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import { rateLimited } from '../../../core/http/errors.js';
import { hashToken } from '../../../core/security/tokens.js';
import type { AccountsOptions } from '../options.js';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;
// A user id no account has: the known-network query runs for unknown addresses too, so both take as long.
const NOBODY = 'usr_none';

/** The network a client address belongs to: IPv4 /24, IPv6 /64 (one household, office or mobile carrier pool). */
export function networkOf(ip: string): string {
  const v = isIP(ip);
  if (v === 4) return ip.split('.').slice(0, 3).join('.');
  if (v === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
    if (mapped) return networkOf(mapped[1]);
    const [head = '', tail = ''] = ip.toLowerCase().split('::');
    const left = head ? head.split(':') : [];
    const right = tail ? tail.split(':') : [];
    const groups = ip.includes('::')
      ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
      : left;
    return groups
      .slice(0, 4)
      .map((g) => g.replace(/^0+(?=.)/, ''))
      .join(':');
  }
  return ip;
}

/**
 * Failed password sign-ins, counted so that nobody can lock someone else out (OWASP
 * authentication cheat sheet): per address and client address together (the attacker's own
 * guesses stop the attacker), per client address (one source spraying many accounts), and per
 * address over all clients, a slower limit that, once reached, still admits the networks the
 * account signed in from before (a session opened from the same /24 or /64). Only failures count;
 * a success clears its address-and-client counter. Magic links and single sign-on count nothing
 * here, so they keep working while a password is throttled. Rules: docs/security.md.
 */
export class LoginThrottle {
  private readonly db: Knex;
  private readonly rateLimiter: RateLimiter;
  private readonly opts: AccountsOptions['throttle'];

  constructor({
    db,
    rateLimiter,
    accountsOptions,
  }: {
    db: Knex;
    rateLimiter: RateLimiter;
    accountsOptions: AccountsOptions;
  }) {
    this.db = db;
    this.rateLimiter = rateLimiter;
    this.opts = accountsOptions.throttle;
  }

  private get window(): number {
    return this.opts.windowMinutes * MINUTE;
  }

  private get addressWindow(): number {
    return this.opts.addressWindowMinutes * MINUTE;
  }

  private keys(kind: string, email: string, ip: string) {
    const addr = hashToken(email.trim().toLowerCase());
    return {
      pair: `${kind}:addr-ip:${hashToken(`${addr}\n${ip}`)}`,
      ip: `${kind}:ip:${ip}`,
      addr: `${kind}:addr:${addr}`,
    };
  }

  /**
   * Before a password is checked: 429 rate_limited when this client may not try this address now.
   * `user` is the account of the address, or null (the same queries run either way).
   */
  async admit(kind: string, email: string, ip: string, user: { id: string; org_id: string } | null): Promise<void> {
    const k = this.keys(kind, email, ip);
    for (const [key, limit] of [
      [k.pair, this.opts.loginPerAddressAndIp],
      [k.ip, this.opts.loginPerIp],
    ] as const) {
      const peek = await this.rateLimiter.peek(key, limit, this.window);
      if (!peek.allowed) throw rateLimited(peek.retryAfterSeconds, 'Too many failed sign-ins; retry later');
    }
    const global = await this.rateLimiter.peek(k.addr, this.opts.loginPerAddress, this.addressWindow);
    if (global.allowed) return;
    if (await this.knownNetwork(user, ip)) return;
    throw rateLimited(
      global.retryAfterSeconds,
      'Too many failed sign-ins for this account; retry later, or sign in with an emailed link',
    );
  }

  /** A wrong password (or an unknown address): counts against all three limits. */
  async failed(kind: string, email: string, ip: string): Promise<void> {
    const k = this.keys(kind, email, ip);
    await this.rateLimiter.hit(k.pair, this.opts.loginPerAddressAndIp, this.window);
    await this.rateLimiter.hit(k.ip, this.opts.loginPerIp, this.window);
    await this.rateLimiter.hit(k.addr, this.opts.loginPerAddress, this.addressWindow);
  }

  /** The right password: this client starts again. The all-clients counter runs out on its own. */
  async succeeded(kind: string, email: string, ip: string): Promise<void> {
    await this.rateLimiter.reset(this.keys(kind, email, ip).pair);
  }

  /** Whether the account opened a session from this client's network within knownNetworkDays. */
  private async knownNetwork(user: { id: string; org_id: string } | null, ip: string): Promise<boolean> {
    const since = new Date(Date.now() - this.opts.knownNetworkDays * DAY);
    const rows = (await this.db('sessions')
      .distinct('ip')
      .where({ org_id: user?.org_id ?? NOBODY, user_id: user?.id ?? NOBODY })
      .where('created_at', '>', since)
      .whereNotNull('ip')
      .limit(200)) as { ip: string }[];
    const mine = networkOf(ip);
    return rows.some((r) => networkOf(r.ip) === mine);
  }
}
