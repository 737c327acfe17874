import { run, forOrg } from '../../../core/data/statements.js';
import { InboxChannel, type InboundReason, type InboundStatus } from '../models/index.js';
import { ensureChannel } from './channel-store.js';
import {
  detectAutoReply,
  detectBounce,
  detectForwardingConfirmation,
  detectMailingList,
  detectOwnMail,
  isForwardingTest,
  isNoReplySender,
  type OwnIdentity,
} from './classify.js';
import type { InboxDeps, InboxWorkspace } from './deps.js';
import { contentKey, type MessageFacts } from './mime.js';

export interface Verdict {
  status: InboundStatus;
  reason: InboundReason | null;
  signals: string[];
  /** Kept for a person to release (quarantined only). */
  keepRaw: boolean;
}

/**
 * What classification reads, one prepared statement: the channel, the plan, whether the workspace
 * holds an original of the message (not a stored duplicate: the predicate of
 * inbox_emails_dedupe_uq), and the sender's recent mail. $1 org, $2 workspace, $3 message key,
 * $4 loop window start, $5 content key, $6 rate window start, $7 sender, $8 the earlier window.
 */
const CONTEXT = forOrg(`
  select r.same_content, r.total,
    (select row_to_json(c) from inbox_channels c where c.org_id = $1 and c.workspace_id = $2) as channel,
    (select o.plan from organizations o where o.id = $1) as plan,
    exists (select 1 from inbox_emails d where d.org_id = $1 and d.workspace_id = $2 and d.message_key = $3 and (d.reason is null or d.reason <> 'duplicate')) as seen
  from (select count(*) filter (where e.received_at > $4 and e.content_key = $5)::int as same_content,
               count(*) filter (where e.received_at > $6)::int as total
        from inbox_emails e
        where e.org_id = $1 and e.workspace_id = $2 and e.sender_key = $7 and e.received_at > $8 and (e.reason is null or e.reason <> 'duplicate')) r`);

export interface ClassifyContext {
  channel: InboxChannel;
  plan: string;
  seen: boolean;
  sameContent: number;
  total: number;
}

export const verdict = (
  status: InboundStatus,
  reason: InboundReason | null,
  signal?: string | null,
  keepRaw = false,
): Verdict => ({ status, reason, signals: signal ? [signal] : [], keepRaw });

/**
 * What classification needs from the database, in one round trip: the channel, the plan,
 * whether the workspace holds an original of the message, and the sender's recent mail (the same
 * subject and text within the loop window, all within the rate window). Stored duplicates are not counted.
 */
export async function loadClassifyContext(
  d: Pick<InboxDeps, 'db' | 'options'>,
  ws: InboxWorkspace,
  f: MessageFacts,
  messageKey: string,
  now: Date,
): Promise<ClassifyContext> {
  const { loop, senderRateLimit } = d.options;
  const loopSince = new Date(now.getTime() - loop.windowMinutes * 60_000);
  const rateSince = new Date(now.getTime() - senderRateLimit.windowMinutes * 60_000);
  const [row] = await run<{
    same_content: number;
    total: number;
    channel: Record<string, unknown> | null;
    plan: string | null;
    seen: boolean;
  }>(d.db, CONTEXT, [
    ws.org_id,
    ws.id,
    messageKey,
    loopSince,
    contentKey(f),
    rateSince,
    f.from?.address ?? null,
    loopSince < rateSince ? loopSince : rateSince,
  ]);
  const channel = row?.channel ? InboxChannel.fromDatabaseJson(row.channel) : await ensureChannel(d.db, ws);
  return {
    channel,
    plan: row?.plan ?? 'none',
    seen: !!row?.seen,
    sameContent: Number(row?.same_content ?? 0),
    total: Number(row?.total ?? 0),
  };
}

/**
 * The classification, in order: duplicate, channel_disabled, not_in_plan,
 * forwarding_confirmation, forwarding_test, bounce, auto_reply, loop (our own mail, then
 * repeated exchanges), no_reply, mailing_list, spam, rate_limited; otherwise processed.
 */
export function classifyEmail(
  d: Pick<InboxDeps, 'options' | 'planCatalog'>,
  identity: OwnIdentity,
  ws: InboxWorkspace,
  ctx: ClassifyContext,
  f: MessageFacts,
  spam: { score: number; signals: string[] },
): Verdict {
  const channel = ctx.channel;
  if (ctx.seen) return verdict('ignored', 'duplicate');
  if (ws.archived_at || !ws.mailbox_enabled)
    return verdict('ignored', 'channel_disabled', ws.archived_at ? 'workspace_archived' : 'mailbox_disabled');
  if (!channel.enabled) return verdict('ignored', 'channel_disabled', 'channel_disabled');
  if (!d.planCatalog.hasFeature(ctx.plan, 'email_channel'))
    return verdict('quarantined', 'not_in_plan', 'email_channel', true);
  if (detectForwardingConfirmation(f))
    return verdict('processed', 'forwarding_confirmation', 'forwarding_confirmation');
  if (isForwardingTest(f, channel.test_code)) return verdict('processed', 'forwarding_test', 'forwarding_test');
  const bounce = detectBounce(f);
  if (bounce) return verdict('ignored', 'bounce', bounce.signal);
  const auto = detectAutoReply(f);
  if (auto) return verdict('ignored', 'auto_reply', auto);
  const own = detectOwnMail(f, identity);
  if (own) return verdict('ignored', 'loop', own);
  if (f.from && ctx.sameContent + 1 >= d.options.loop.max) return verdict('ignored', 'loop', 'repeated_exchange');
  if (isNoReplySender(f.from?.address) && (!f.replyTo || isNoReplySender(f.replyTo.address)))
    return verdict('ignored', 'no_reply', 'no_reply_sender');
  const list = channel.accept_list_mail ? null : detectMailingList(f);
  if (list) return verdict('ignored', 'mailing_list', list);
  if (spam.score >= d.options.spamThreshold) return verdict('quarantined', 'spam', null, true);
  if (f.from && ctx.total + 1 > d.options.senderRateLimit.max)
    return verdict('quarantined', 'rate_limited', 'sender_rate', true);
  return verdict('processed', null);
}
