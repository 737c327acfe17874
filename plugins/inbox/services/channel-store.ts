import type { Knex } from 'knex';
import { newId } from '../../../core/data/ids.js';
import { InboxChannel } from '../models/index.js';
import type { InboxWorkspace } from './deps.js';

/**
 * The channel row of a workspace, made on first use (GET of the channel, or the first email):
 * enabled, list mail refused, no forwarding.
 */
export async function ensureChannel(
  db: Knex,
  ws: InboxWorkspace,
  opts: { forUpdate?: boolean } = {},
): Promise<InboxChannel> {
  const read = () => {
    const q = InboxChannel.query(db).forOrg(ws.org_id).where({ workspace_id: ws.id }).limit(1).first();
    if (opts.forUpdate) q.forUpdate();
    return q;
  };
  const found = await read();
  if (found) return found;
  const now = new Date();
  await db('inbox_channels')
    .insert({
      id: newId(InboxChannel.idPrefix),
      org_id: ws.org_id,
      workspace_id: ws.id,
      created_at: now,
      updated_at: now,
    })
    .onConflict('workspace_id')
    .ignore();
  const made = await read();
  if (!made) throw new Error(`inbox: channel of workspace ${ws.id} could not be created`);
  return made;
}
