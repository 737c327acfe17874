import type { Knex } from 'knex';
import type { Cradle } from '../../../core/kernel/cradle.js';
import { userKeyOf } from './grouping.js';

interface Subject {
  email: string | null;
  userId: string | null;
}

/** The privacy plugin's registry (container key `personalData`), as far as proactive declares into it. */
export type PersonalDataPort = Pick<Cradle['personalData'], 'declare'>;

/**
 * Where proactive keeps an end user, for the privacy plugin's erasure:
 * - the stored events that name them, by email or id in `user`;
 * - their user keys, which count them in groups and releases (`error_group_users`,
 *   `error_group_release_users`).
 *
 * A user key is a hash of the first of id, email, username and IP that an event carried
 * (grouping.ts, `userKeyOf`), never the address itself. The keys to erase are therefore those
 * the subject's id and email hash to, plus those of the events that name them (an event with an id
 * and an email is keyed by its id). The keys are found once per erasure, before the events go.
 */
export function declarePersonalData(registry: PersonalDataPort): void {
  // One erasure is one transaction about one subject: its keys are found once per transaction.
  const found = new WeakMap<Knex.Transaction, Promise<string[]>>();
  const keysOf = (trx: Knex.Transaction, orgId: string, s: Subject): Promise<string[]> => {
    let keys = found.get(trx);
    if (!keys) {
      keys = userKeysOf(trx, orgId, s);
      found.set(trx, keys);
    }
    return keys;
  };
  const deleteKeys =
    (table: string) =>
    async (trx: Knex.Transaction, orgId: string, s: Subject): Promise<number> => {
      const keys = await keysOf(trx, orgId, s);
      return keys.length
        ? (await trx(table).where('org_id', orgId).whereIn('user_key', keys).delete().returning('org_id')).length
        : 0;
    };
  // Keys first: they are read from the events, which the last declaration deletes.
  registry.declare({
    plugin: 'proactive',
    table: 'error_group_release_users',
    columns: ['user_key'],
    custom: deleteKeys('error_group_release_users'),
  });
  registry.declare({
    plugin: 'proactive',
    table: 'error_group_users',
    columns: ['user_key'],
    custom: deleteKeys('error_group_users'),
  });
  registry.declare({
    plugin: 'proactive',
    table: 'error_events',
    columns: ['user', 'user_key'],
    custom: async (trx, orgId, s) => {
      const keys = await keysOf(trx, orgId, s);
      return (await naming(trx('error_events').where('org_id', orgId), s, keys).delete().returning('org_id')).length;
    },
  });
}

/** Events of the organization that name the subject: by email or id in `user`, or by one of `keys`. */
function naming(q: Knex.QueryBuilder, s: Subject, keys: string[]): Knex.QueryBuilder {
  return q.where((w) => {
    w.whereIn('user_key', keys);
    if (s.email) w.orWhereRaw(`lower("user"->>'email') = ?`, [s.email]);
    if (s.userId) w.orWhereRaw(`"user"->>'id' = ?`, [s.userId]);
  });
}

async function userKeysOf(trx: Knex.Transaction, orgId: string, s: Subject): Promise<string[]> {
  const own = [s.userId ? userKeyOf({ id: s.userId }) : null, s.email ? userKeyOf({ email: s.email }) : null].filter(
    (k): k is string => !!k,
  );
  const fromEvents = (await naming(trx('error_events').where('org_id', orgId).whereNotNull('user_key'), s, own)
    .distinct('user_key')
    .pluck('user_key')) as string[];
  return [...new Set([...own, ...fromEvents])];
}
