import { existsSync } from 'node:fs';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AdapterError, AdapterNotFoundError, type Installation, type Repository } from '../../core/contracts/index.js';
import { newId } from '../../core/data/ids.js';
import { NAME, hash, type LocalHostContext } from './options.js';
import type { LocalRepositories } from './repositories.js';

/** An installation's row (`codehost_local_installations`). */
interface InstallationRow {
  id: string;
  account_login: string;
  account_type: string;
  suspended_at: Date | null;
  pending_state_hash: string | null;
  pending_setup_url: string | null;
  created_at: Date;
}

/** Installations: one built-in installation per account (all its repositories), the install page's setup redirect. */
export class LocalInstallations {
  constructor(
    private readonly ctx: LocalHostContext,
    private readonly repos: LocalRepositories,
  ) {}

  installUrl(state: string): string {
    return `${this.ctx.publicUrl}/codehost/local/install?state=${encodeURIComponent(state)}`;
  }

  /**
   * The built-in installation of an account (created once), and, with `state`, the install page
   * for that state sends the browser to `setupUrl` with the installation id, as a host's setup
   * redirect does.
   */
  async builtinInstallation(
    accountLogin: string,
    pending?: { state: string; setupUrl: string },
  ): Promise<Installation> {
    if (!NAME.test(accountLogin))
      throw new AdapterError('invalid_account', `"${accountLogin}" is not a valid account name`);
    await this.ctx
      .db('codehost_local_installations')
      .insert({ id: newId('lin'), account_login: accountLogin })
      .onConflict('account_login')
      .ignore();
    if (pending) {
      await this.ctx
        .db('codehost_local_installations')
        .where({ account_login: accountLogin })
        .update({ pending_state_hash: hash(pending.state), pending_setup_url: pending.setupUrl });
    }
    await mkdir(join(await this.repos.root(), accountLogin), { recursive: true });
    const row = await this.ctx
      .db<InstallationRow>('codehost_local_installations')
      .where({ account_login: accountLogin })
      .first();
    // Inserted above unless it was there already.
    return this.installationOf(row!);
  }

  /** Where the install page sends a browser holding `state`, or null for an unknown state. */
  async setupRedirect(state: string): Promise<string | null> {
    const row = await this.ctx
      .db<InstallationRow>('codehost_local_installations')
      .where({ pending_state_hash: hash(state) })
      .first();
    if (!row?.pending_setup_url) return null;
    const u = new URL(row.pending_setup_url);
    u.searchParams.set('installation_id', row.id);
    u.searchParams.set('setup_action', 'install');
    u.searchParams.set('state', state);
    return u.toString();
  }

  /** Suspends or resumes an installation (what the host's settings page does). */
  async setInstallationSuspended(installationId: string, suspended: boolean): Promise<void> {
    await this.getInstallation(installationId);
    await this.ctx
      .db('codehost_local_installations')
      .where({ id: installationId })
      .update({ suspended_at: suspended ? new Date() : null });
  }

  private installationOf(row: InstallationRow): Installation {
    return {
      id: row.id,
      account: { login: row.account_login, type: row.account_type === 'user' ? 'user' : 'organization' },
      repositorySelection: 'all',
      permissions: {
        contents: 'write',
        issues: 'write',
        pull_requests: 'write',
        metadata: 'read',
        secrets: 'write',
        statuses: 'read',
      },
      suspendedAt: row.suspended_at ? new Date(row.suspended_at) : null,
    };
  }

  async getInstallation(installationId: string): Promise<Installation> {
    const row = await this.ctx
      .db<InstallationRow>('codehost_local_installations')
      .where({ id: installationId })
      .first();
    if (!row) throw new AdapterNotFoundError(`installation ${installationId} does not exist`);
    return this.installationOf(row);
  }

  async listRepositories(installationId: string): Promise<Repository[]> {
    const inst = await this.getInstallation(installationId);
    const dir = join(await this.repos.root(), inst.account.login);
    const names = existsSync(dir) ? await readdir(dir) : [];
    const repos: Repository[] = [];
    for (const n of names.sort()) {
      if (!n.endsWith('.git') || !(await stat(join(dir, n))).isDirectory()) continue;
      try {
        repos.push(
          await this.repos.getRepository({ installationId, fullName: `${inst.account.login}/${n.slice(0, -4)}` }),
        );
      } catch {
        // not a repository: skipped
      }
    }
    return repos;
  }
}
