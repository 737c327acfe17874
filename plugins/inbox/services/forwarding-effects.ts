import type { Knex } from 'knex';
import { InboxChannel, type GmailConfirmation } from '../models/index.js';
import type { ForwardingConfirmationFinding } from './classify.js';

/*
 * What an inbound email changes on its channel's forwarding: a provider's confirmation request
 * held for the settings, a test message come back, mail that came through the forwarding.
 */

export async function confirmationReceived(
  trx: Knex,
  channel: InboxChannel,
  found: ForwardingConfirmationFinding,
  at: Date,
): Promise<void> {
  const pending: GmailConfirmation = {
    code: found.code,
    url: found.url,
    requested_by: found.requestedBy,
    received_at: at.toISOString(),
    verified: false,
  };
  const patch: Partial<InboxChannel> = { pending_gmail_confirmation: pending };
  if (channel.forwarding_address && found.requestedBy === channel.forwarding_address)
    patch.gmail_confirmation = pending;
  await InboxChannel.query(trx).forOrg(channel.org_id).patch(patch).where('id', channel.id);
}

export async function testReturned(trx: Knex, channel: InboxChannel, at: Date): Promise<void> {
  await InboxChannel.query(trx)
    .forOrg(channel.org_id)
    .patch({
      forwarding_verified_at: channel.forwarding_verified_at ?? at,
      forwarding_tested_at: at,
      ...confirmedByForwarding(channel),
    })
    .where('id', channel.id);
}

/** Notes mail that came through the forwarding (at most once a minute, unless a confirmation is pending). */
export async function forwarded(db: Knex, channel: InboxChannel, at: Date): Promise<void> {
  const confirm = confirmedByForwarding(channel);
  const recent = channel.last_forwarded_at && at.getTime() - new Date(channel.last_forwarded_at).getTime() < 60_000;
  if (recent && Object.keys(confirm).length === 0) return;
  await InboxChannel.query(db)
    .forOrg(channel.org_id)
    .patch({ last_forwarded_at: at, ...confirm })
    .where('id', channel.id);
}

/**
 * Mail that came through the forwarding proves a pending provider confirmation was accepted:
 * it becomes the forwarding's confirmation, verified.
 */
function confirmedByForwarding(channel: InboxChannel): Partial<InboxChannel> {
  const pending = channel.pending_gmail_confirmation;
  if (pending && (!pending.requested_by || pending.requested_by === channel.forwarding_address)) {
    return { gmail_confirmation: { ...pending, verified: true }, pending_gmail_confirmation: null };
  }
  if (channel.gmail_confirmation && !channel.gmail_confirmation.verified)
    return { gmail_confirmation: { ...channel.gmail_confirmation, verified: true } };
  return {};
}
