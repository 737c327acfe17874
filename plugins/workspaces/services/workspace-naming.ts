import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { conflict } from '../../../core/http/errors.js';
import { Workspace } from '../models/workspace.js';
import { slugify } from '../../../core/data/slug.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

const LOCAL_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
function randomLocal(n = 6): string {
  const bytes = randomBytes(n);
  let out = '';
  for (let i = 0; i < n; i++) out += LOCAL_ALPHABET[bytes[i] % LOCAL_ALPHABET.length];
  return out;
}

/** Whether a database error (raw pg, or wrapped by objection's db-errors) is a unique violation. */
/** The slug of a new workspace: the one asked for (409 slug_taken when used), or one derived from the name. */
export async function pickSlug(trx: Knex, orgId: string, wanted: string | undefined, name: string): Promise<string> {
  const taken = async (slug: string) =>
    !!(await Workspace.query(trx).forOrg(orgId).where({ slug }).select('id').limit(1).first());
  if (wanted) {
    if (await taken(wanted))
      throw conflict('slug_taken', `The slug "${wanted}" is already used by a workspace of this organization`, {
        slug: wanted,
      });
    return wanted;
  }
  const base = slugify(name, 'workspace');
  if (!(await taken(base))) return base;
  for (let i = 2; i < 1000; i++) {
    const candidate = `${base.slice(0, 36)}-${i}`;
    if (!(await taken(candidate))) return candidate;
  }
  return `${base.slice(0, 32)}-${randomLocal(6)}`;
}

/** Inserts with a fresh inbound address under `inboundDomain`; a collision of the random part is retried. */
export async function insertWithAddress(
  trx: Knex,
  row: Record<string, unknown>,
  inboundDomain: string,
): Promise<Workspace> {
  for (let attempt = 0; ; attempt++) {
    const address = `${row.slug as string}-${randomLocal()}@${inboundDomain}`;
    try {
      // A savepoint, so a unique violation does not abort the caller's transaction.
      return await trx.transaction(
        async (sp) =>
          await Workspace.query(sp)
            .insert({ ...row, inbound_address: address } as Partial<Workspace>)
            .returning('*'),
      );
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      const constraint = String((err as { constraint?: string }).constraint ?? (err as Error).message);
      if (!/inbound_address/.test(constraint) || attempt >= 5) {
        if (/slug/.test(constraint))
          throw conflict(
            'slug_taken',
            `The slug "${row.slug as string}" is already used by a workspace of this organization`,
            { slug: row.slug },
          );
        throw err;
      }
    }
  }
}
