import { createHmac } from 'node:crypto';
import { newId } from '../../../core/data/ids.js';
import { forOrg, run } from '../../../core/data/statements.js';
import { TtlMap } from '../../../core/data/ttl-map.js';
import { safeEqual } from '../../../core/security/tokens.js';
import { CACHE_MAX, EVENTS_CACHE_MS } from './intake.js';
import type { WidgetDeps, WidgetWorkspace } from './deps.js';
import { refuse } from './refusals.js';
import type { SettingsStore } from './store.js';

export interface IdentifyInput {
  consent: boolean;
  email: string;
  user_hash: string;
  user_id?: string;
}

/** The hex HMAC-SHA256 of the lower-cased email, keyed with the install's identity secret (what the host computes). */
export const userHashOf = (secret: string, email: string): string =>
  createHmac('sha256', secret).update(email.trim().toLowerCase()).digest('hex');

const EMAIL_OF_USER = forOrg(
  `select i.email from widget_identities i where i.org_id = $1 and i.workspace_id = $2 and i.user_id = $3 order by i.identified_at desc limit 1`,
);

/**
 * The host's end users as the widget knows them: identify (an email vouched for by the host's
 * HMAC, with consent), and the checks a report or an event makes of a user hash or a user id.
 */
export class WidgetIdentities {
  /** User ids with no identity, for the events path (EVENTS_CACHE_MS). */
  private readonly unknownUsers = new TtlMap<string, true>(EVENTS_CACHE_MS, CACHE_MAX);

  constructor(
    private readonly d: WidgetDeps,
    private readonly store: SettingsStore,
  ) {}

  /** Links the host's end user (an email vouched for by the host's HMAC) to this install, with consent. */
  async identify(
    ws: WidgetWorkspace,
    input: IdentifyInput,
  ): Promise<{ identified: boolean; email: string; user_id: string | null }> {
    if (input.consent !== true) throw refuse(403, 'consent_required', 'host_consent', { consent: 'host' });
    await this.d.rateLimiter.consume(
      `widget-identify:${ws.id}`,
      this.d.options.identifyPerMinute,
      60_000,
      'Too many identify calls; retry later',
    );
    const email = input.email.trim().toLowerCase();
    if (!(await this.hashValid(ws, email, input.user_hash)))
      throw refuse(401, 'invalid_user_hash', 'invalid_user_hash');
    const now = new Date();
    await this.d.db.raw(
      `insert into widget_identities (id, org_id, workspace_id, email, user_id, consent_at, identified_at) values (?, ?, ?, ?, ?, ?, ?)
       on conflict (workspace_id, email) do update set user_id = coalesce(excluded.user_id, widget_identities.user_id), consent_at = excluded.consent_at, identified_at = excluded.identified_at`,
      [newId('wid'), ws.org_id, ws.id, email, input.user_id ?? null, now, now],
    );
    if (input.user_id) this.unknownUsers.delete(`${ws.id}\n${input.user_id}`);
    return { identified: true, email, user_id: input.user_id ?? null };
  }

  async hashValid(ws: WidgetWorkspace, email: string, hash: string): Promise<boolean> {
    const settings = await this.store.read(this.d.db, ws.org_id, ws.id);
    const secret = this.store.identitySecret(settings);
    return !!secret && safeEqual(userHashOf(secret, email), hash.trim().toLowerCase());
  }

  /**
   * emailOfUser for the events path. Only "no identity for this user id" is kept (for
   * EVENTS_CACHE_MS; an identify in this process forgets it at once): an email is read each time,
   * so an erased identity never reaches a later event.
   */
  async cachedEmailOfUser(ws: WidgetWorkspace, userId: string): Promise<string | null> {
    const key = `${ws.id}\n${userId}`;
    if (this.unknownUsers.get(key)) return null;
    const email = await this.emailOfUser(ws, userId);
    if (email !== null) this.unknownUsers.delete(key);
    else this.unknownUsers.set(key, true);
    return email;
  }

  async emailOfUser(ws: WidgetWorkspace, userId: string): Promise<string | null> {
    const [row] = await run<{ email: string }>(this.d.db, EMAIL_OF_USER, [ws.org_id, ws.id, userId]);
    return row?.email ?? null;
  }
}
