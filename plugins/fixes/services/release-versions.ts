import type { Knex } from 'knex';
import { conflict, httpError } from '../../../core/http/errors.js';
import { FixRelease } from '../models/index.js';

// The version rules of a release: what a version may look like, the next one, its tag, and that it is free.
const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)$/;
const VERSION = /^[0-9A-Za-z][0-9A-Za-z.+-]{0,63}$/;

const invalidVersion = (version: string) =>
  httpError(422, 'invalid_version', 'A version is letters, digits, dots, + and - (at most 64)', { version });

/** 422 invalid_version unless `version` is letters, digits, dots, + and - (at most 64). */
export function checkVersion(version: string): string {
  if (!VERSION.test(version)) throw invalidVersion(version);
  return version;
}

/** An optional version given by a person, trimmed (null when empty); 422 invalid_version when malformed. */
export function givenVersion(input: string | null | undefined): string | null {
  const version = input?.trim() || null;
  return version ? checkVersion(version) : null;
}

export const tagOf = (version: string) => `v${version.replace(/^v/, '')}`;

/** The next version of a workspace: semver bumps the patch of the highest release, calver is YYYY.MM.DD(.n). */
export function nextVersion(strategy: 'semver' | 'calver', previous: string[], now = new Date()): string {
  if (strategy === 'semver') {
    const parsed = previous
      .map((v) => SEMVER.exec(v))
      .filter((m): m is RegExpExecArray => !!m)
      .map((m) => [Number(m[1]), Number(m[2]), Number(m[3])] as const);
    if (parsed.length === 0) return '0.1.0';
    parsed.sort((a, b) => a[0] - b[0] || a[1] - b[1] || a[2] - b[2]);
    const [maj, min, pat] = parsed[parsed.length - 1];
    return `${maj}.${min}.${pat + 1}`;
  }
  const day = `${now.getUTCFullYear()}.${String(now.getUTCMonth() + 1).padStart(2, '0')}.${String(now.getUTCDate()).padStart(2, '0')}`;
  const same = previous.filter((v) => v === day || v.startsWith(`${day}.`)).length;
  return same === 0 ? day : `${day}.${same}`;
}

/** 409 version_exists when another release of the workspace has the version (or its tag). */
export async function versionFreeOr409(trx: Knex, rel: FixRelease, version: string): Promise<void> {
  const taken = await FixRelease.query(trx)
    .forOrg(rel.org_id)
    .where({ workspace_id: rel.workspace_id })
    .whereNot('id', rel.id)
    .where((q) => q.where('version', version).orWhere('tag', tagOf(version)))
    .limit(1)
    .first();
  if (taken)
    throw conflict('version_exists', `Version ${version} exists already in this workspace`, {
      version,
      release_id: taken.id,
    });
}
