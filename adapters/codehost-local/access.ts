import { randomBytes } from 'node:crypto';
import { AdapterError, type GitAccess, type RepoRef } from '../../core/contracts/index.js';
import type { LocalHostContext } from './options.js';
import type { LocalRepositories } from './repositories.js';

/** What CI and agents get to reach a repository: its CI secrets and git access. */
export class LocalAccess {
  constructor(
    private readonly ctx: LocalHostContext,
    private readonly repos: LocalRepositories,
  ) {}

  /** Stores a CI secret sealed with the service's secret box. */
  async setSecret(ref: RepoRef, name: string, value: string): Promise<void> {
    const repo = this.repos.canonical(ref.fullName);
    await this.repos.repo(repo);
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
      throw new AdapterError('invalid_secret_name', `"${name}" is not a valid secret name`);
    const sealer = this.ctx.sealer;
    if (!sealer) throw new AdapterError('not_configured', 'codehost-local needs the secret box to store secrets');
    const sealed = sealer.encrypt(value, `codehost-local:secret:${repo}:${name}`);
    await this.ctx
      .db('codehost_local_secrets')
      .insert({ repo, name, value_sealed: sealed, updated_at: new Date() })
      .onConflict(['repo', 'name'])
      .merge(['value_sealed', 'updated_at']);
  }

  /** A CI secret in clear, for the local runner (a real host gives it to CI jobs only). Null when unset. */
  async readSecret(fullName: string, name: string): Promise<string | null> {
    const repo = this.repos.canonical(fullName);
    const row = await this.ctx
      .db<{ repo: string; name: string; value_sealed: string }>('codehost_local_secrets')
      .where({ repo, name })
      .first();
    return row && this.ctx.sealer
      ? this.ctx.sealer.decrypt(row.value_sealed, `codehost-local:secret:${repo}:${name}`)
      : null;
  }

  async createGitAccess(ref: RepoRef, _input: { write: boolean }): Promise<GitAccess> {
    const repo = await this.repos.repo(ref);
    // The local host serves repositories from disk; the token exists for the shape only.
    return {
      token: `lgt_${randomBytes(24).toString('base64url')}`,
      expiresAt: new Date(Date.now() + 60 * 60_000),
      cloneUrl: repo.dir,
    };
  }
}
