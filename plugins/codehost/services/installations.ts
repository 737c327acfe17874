import type { Knex } from 'knex';
import { diffFields, type AuditedActor } from '../../../core/audit/audit-writer.js';
import { recordChanges } from '../../../core/audit/changes.js';
import type { SignedInActor } from '../../../core/contracts/index.js';
import { isAdapterError, type Installation } from '../../../core/contracts/index.js';
import type { Principal } from '../../../core/http/auth.js';
import { conflict, httpError, notFound } from '../../../core/http/errors.js';
import { decodeCursor, encodeCursor, type Page } from '../../../core/http/pagination.js';
import { InstallationModel, RepositoryModel } from '../models/index.js';
import { hasBuiltinInstallations, type CodehostDeps, type SignInAvailability } from './deps.js';
import { iso } from '../../../core/http/times.js';
import { viaHost } from './errors.js';
import { SETUP_PATH } from '../options.js';
import type { RepositoryService } from './repositories.js';
import { installationJson } from './serialize.js';
import { StateStore } from './states.js';
import { isUniqueViolation } from '../../../core/data/db-errors.js';

/**
 * Installations of the app: the install URL with a single-use state bound to the organization,
 * linking after the code host's setup redirect, reading and syncing them, unlinking (which
 * disconnects their repositories), and the code-host status of GET /v1/codehost.
 */
export class InstallationService {
  private readonly states: StateStore;

  constructor(
    private readonly d: CodehostDeps,
    private readonly repositories: () => RepositoryService,
  ) {
    this.states = new StateStore(d.db);
  }

  get host() {
    return this.d.host;
  }

  private async connectedCounts(db: Knex, orgId: string, ids: string[]): Promise<Map<string, number>> {
    if (ids.length === 0) return new Map();
    const rows = (await RepositoryModel.query(db)
      .forOrg(orgId)
      .whereIn('installation_id', ids)
      .groupBy('installation_id')
      .select('installation_id')
      .count({ n: '*' })) as unknown as Array<{ installation_id: string; n: number | string }>;
    return new Map(rows.map((r) => [r.installation_id, Number(r.n)]));
  }

  async json(db: Knex, rows: InstallationModel[]) {
    if (rows.length === 0) return [];
    const counts = await this.connectedCounts(
      db,
      rows[0].org_id,
      rows.map((r) => r.id),
    );
    return rows.map((r) => installationJson(r, counts.get(r.id) ?? 0));
  }

  /** The installation of this organization (any state), or 404. */
  async load(orgId: string, id: string, trx?: Knex): Promise<InstallationModel> {
    const row = await InstallationModel.query(trx ?? this.d.db)
      .forOrg(orgId)
      .findById(id);
    if (!row) throw notFound('installation');
    return row;
  }

  /** GET /v1/codehost: the app, the organization's installations, the user's link. */
  async status(principal: Principal) {
    const rows = await InstallationModel.query(this.d.db)
      .forOrg(principal.orgId)
      .whereNull('removed_at')
      .orderBy('created_at')
      .orderBy('id');
    let link = { linked: false, login: null as string | null, token_last4: null as string | null };
    if (principal.userId) {
      const user: { code_host_login: string | null } | undefined = await this.d
        .db('users')
        .where({ id: principal.userId, org_id: principal.orgId })
        .first('code_host_login');
      const token: { last4: string } | undefined = await this.d
        .db('codehost_user_tokens')
        .where({ user_id: principal.userId, org_id: principal.orgId })
        .first('last4');
      link = {
        linked: !!user?.code_host_login,
        login: user?.code_host_login ?? null,
        token_last4: token?.last4 ?? null,
      };
    }
    return {
      app: {
        host: this.d.host.identifier,
        install_available: true,
        sign_in_available: await this.signInAvailable(),
        webhook_url: `${this.d.config.server.publicBaseUrl.replace(/\/+$/, '')}/v1/webhooks/codehost`,
      },
      installations: await this.json(this.d.db, rows),
      link,
    };
  }

  /** Whether users can sign in through the host: it builds an authorize URL (and, locally, has accounts). */
  async signInAvailable(): Promise<boolean> {
    if ((this.d.host as Partial<SignInAvailability>).signInAvailable === false) return false;
    const probe = {
      state: 'probe',
      codeChallenge: 'A'.repeat(43),
      redirectUri: `${this.d.config.server.publicBaseUrl}/v1/auth/codehost/callback`,
    };
    return this.d.host.authorizeUrl(probe).then(
      () => true,
      () => false,
    );
  }

  /** POST /v1/codehost/install: the install URL and its single-use state. */
  async startInstall(principal: Principal): Promise<{ url: string; state: string; expires_at: string }> {
    const { state, expiresAt } = await this.states.create(null, 'install', this.d.options.installStateTtlMinutes, {
      org_id: principal.orgId,
      user_id: principal.userId,
    });
    const host = this.d.host;
    if (hasBuiltinInstallations(host)) {
      // The local host has one built-in installation per organization, on an account named after it.
      const org: { slug: string } = await this.d.db('organizations').where({ id: principal.orgId }).first('slug');
      // The service's setup route links and sends the browser on with the API's id (routes/setup.ts).
      const setupUrl = `${this.d.config.server.publicBaseUrl.replace(/\/+$/, '')}${SETUP_PATH}`;
      await viaHost(() => host.builtinInstallation(org.slug, { state, setupUrl }));
    }
    const url = await viaHost(() => host.installUrl(state));
    return { url, state, expires_at: expiresAt.toISOString() };
  }

  /** POST /v1/codehost/installations: links the installation the setup redirect named. */
  async link(
    actor: SignedInActor,
    input: { installation_id: string; state: string },
  ): Promise<{ created: boolean; installation: ReturnType<typeof installationJson> }> {
    const principal = actor.principal;
    const external = await this.readHostInstallation(input.installation_id, true);
    const outcome = await this.d.db.transaction(async (trx) => {
      const st = await this.states.consume(trx, input.state, ['install']);
      if (!st || st.org_id !== principal.orgId)
        throw httpError(
          400,
          'invalid_state',
          'The install state is unknown, used, expired or belongs to another organization',
        );
      const existing = await InstallationModel.query(trx)
        .acrossOrgs('an installation is linked to one organization')
        .where({ host: this.d.host.identifier, external_id: external.id })
        .whereNull('removed_at')
        .limit(1)
        .first();
      if (existing && existing.org_id !== principal.orgId)
        throw conflict('installation_linked_elsewhere', 'This installation is linked to another organization');
      if (existing) return { created: false, row: existing };
      let row: InstallationModel;
      try {
        row = await InstallationModel.query(trx)
          .insert({
            org_id: principal.orgId,
            host: this.d.host.identifier,
            external_id: external.id,
            ...fromHost(external),
            linked_by_user_id: principal.userId,
            last_synced_at: new Date(),
          })
          .returning('*');
      } catch (err) {
        if (isUniqueViolation(err))
          throw conflict('installation_linked_elsewhere', 'This installation is linked to another organization');
        throw err;
      }
      await this.d.audit.record(trx, {
        actor,
        action: 'codehost.installation_linked',
        target: { type: 'codehost_installation', id: row.id },
        changes: diffFields({}, { host: row.host, external_id: row.external_id, account_login: row.account_login }),
      });
      await this.d.outbox.add(
        trx,
        'codehost.installation_linked',
        { installation_id: row.id, external_id: row.external_id, account_login: row.account_login },
        { orgId: principal.orgId },
      );
      return { created: true, row };
    });
    const [json] = await this.json(this.d.db, [outcome.row]);
    return { created: outcome.created, installation: json };
  }

  private async readHostInstallation(externalId: string, forLink: boolean): Promise<Installation> {
    try {
      return await this.d.host.getInstallation(externalId);
    } catch (err) {
      if (isAdapterError(err, 'not_found') && forLink)
        throw httpError(422, 'installation_not_found', 'The code host does not know this installation');
      throw err;
    }
  }

  /** DELETE /v1/codehost/installations/{id}: unlinks and disconnects its repositories. */
  async unlink(actor: SignedInActor, id: string): Promise<{ ok: true; disconnected_repository_ids: string[] }> {
    const principal = actor.principal;
    const inst = await this.load(principal.orgId, id);
    const repos = await RepositoryModel.query(this.d.db).forOrg(principal.orgId).where({ installation_id: inst.id });
    const ids: string[] = [];
    await this.d.db.transaction(async (trx) => {
      for (const r of repos)
        ids.push(await this.repositories().disconnectRow(trx, r, { actor, reason: 'installation_unlinked' }));
      await InstallationModel.query(trx).forOrg(principal.orgId).deleteById(inst.id);
      await this.d.audit.record(trx, {
        actor,
        action: 'codehost.installation_unlinked',
        target: { type: 'codehost_installation', id: inst.id },
        changes: diffFields({ external_id: inst.external_id, account_login: inst.account_login }, {}, [
          'external_id',
          'account_login',
        ]),
        metadata: { disconnected_repository_ids: ids },
      });
      await this.d.outbox.add(
        trx,
        'codehost.installation_unlinked',
        { installation_id: inst.id, external_id: inst.external_id, disconnected_repository_ids: ids },
        { orgId: principal.orgId },
      );
    });
    for (const r of repos) await this.repositories().dropCache(r.id);
    return { ok: true, disconnected_repository_ids: ids };
  }

  /** GET /v1/codehost/installations/{id}/repositories: what the installation reaches, by name. */
  async hostRepositories(
    principal: Principal,
    id: string,
    page: { cursor?: string; limit: number },
  ): Promise<Page<Record<string, unknown>>> {
    const inst = await this.load(principal.orgId, id);
    if (inst.removed_at) throw conflict('installation_removed', 'The app was uninstalled from this account');
    const all = (await viaHost(() => this.d.host.listRepositories(inst.external_id))).sort((a, b) =>
      a.fullName.toLowerCase() < b.fullName.toLowerCase() ? -1 : 1,
    );
    const after = page.cursor
      ? String(decodeCursor(page.cursor, [{ column: 'full_name', direction: 'asc', type: 'string' }])[0])
      : null;
    const rest = after === null ? all : all.filter((r) => r.fullName.toLowerCase() > after);
    const items = rest.slice(0, page.limit);
    const connected = items.length
      ? await RepositoryModel.query(this.d.db)
          .forOrg(principal.orgId)
          .where({ host: this.d.host.identifier })
          .whereIn(
            'external_id',
            items.map((r) => r.id),
          )
      : [];
    const byExt = new Map(connected.map((r) => [r.external_id, r]));
    return {
      items: items.map((r) => ({
        external_id: r.id,
        full_name: r.fullName,
        html_url: r.htmlUrl,
        default_branch: r.defaultBranch,
        is_public: r.isPublic,
        archived: r.archived,
        repository_id: byExt.get(r.id)?.id ?? null,
        workspace_id: byExt.get(r.id)?.workspace_id ?? null,
      })),
      next_cursor: rest.length > page.limit ? encodeCursor([items[items.length - 1].fullName.toLowerCase()]) : null,
    };
  }

  /** POST /v1/codehost/installations/{id}/sync: re-reads account, permissions and suspension. */
  async sync(actor: SignedInActor, id: string) {
    const principal = actor.principal;
    const inst = await this.load(principal.orgId, id);
    let external: Installation | null;
    try {
      external = await this.d.host.getInstallation(inst.external_id);
    } catch (err) {
      // Rethrown through viaHost, which answers the host's other failures as HTTP errors.
      if (!isAdapterError(err, 'not_found'))
        return viaHost<never>(() => {
          throw err;
        });
      external = null;
    }
    const after = await this.d.db.transaction(async (trx) => {
      const row = external
        ? await this.applyHostState(trx, inst, external, actor)
        : await this.markRemoved(trx, inst, actor);
      return row;
    });
    const [json] = await this.json(this.d.db, [after]);
    return json;
  }

  /** Brings the record in line with the host (sync and installation webhooks). */
  async applyHostState(
    trx: Knex,
    inst: InstallationModel,
    external: Installation,
    actor: AuditedActor,
  ): Promise<InstallationModel> {
    const next = { ...fromHost(external), removed_at: null };
    const before = snapshot(inst);
    const changes = diffFields(before, { ...before, ...next, suspended_at: iso(next.suspended_at) }, [
      'account_login',
      'account_type',
      'repository_selection',
      'permissions',
      'suspended_at',
      'removed_at',
    ]);
    const row = await InstallationModel.query(trx)
      .forOrg(inst.org_id)
      .patchAndFetchById(inst.id, { ...next, last_synced_at: new Date() });
    await recordChanges(
      this.d,
      trx,
      {
        orgId: inst.org_id,
        actor,
        action: 'codehost.installation_synced',
        target: { type: 'codehost_installation', id: inst.id },
        changes,
      },
      'codehost.installation_updated',
      { installation_id: inst.id },
    );
    return row;
  }

  /** The app was uninstalled: the record is kept (removed_at) and its repositories disconnected. */
  async markRemoved(trx: Knex, inst: InstallationModel, actor: AuditedActor): Promise<InstallationModel> {
    if (inst.removed_at) return inst;
    const repos = await RepositoryModel.query(trx).forOrg(inst.org_id).where({ installation_id: inst.id });
    const ids: string[] = [];
    for (const r of repos)
      ids.push(await this.repositories().disconnectRow(trx, r, { actor, reason: 'installation_removed' }));
    const row = await InstallationModel.query(trx)
      .forOrg(inst.org_id)
      .patchAndFetchById(inst.id, { removed_at: new Date(), last_synced_at: new Date() });
    await this.d.audit.record(trx, {
      orgId: inst.org_id,
      actor,
      action: 'codehost.installation_removed',
      target: { type: 'codehost_installation', id: inst.id },
      metadata: { disconnected_repository_ids: ids },
    });
    await this.d.outbox.add(
      trx,
      'codehost.installation_removed',
      { installation_id: inst.id, disconnected_repository_ids: ids },
      { orgId: inst.org_id },
    );
    return row;
  }
}

function fromHost(i: Installation) {
  return {
    account_login: i.account.login,
    account_type: i.account.type,
    repository_selection: i.repositorySelection,
    permissions: i.permissions,
    suspended_at: i.suspendedAt,
  };
}

function snapshot(i: InstallationModel): Record<string, unknown> {
  return {
    account_login: i.account_login,
    account_type: i.account_type,
    repository_selection: i.repository_selection,
    permissions: i.permissions,
    suspended_at: iso(i.suspended_at),
    removed_at: iso(i.removed_at),
  };
}
