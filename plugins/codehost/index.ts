import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { asValue } from 'awilix';
import type { Request } from '@hapi/hapi';
import { principalOf } from '../../core/http/auth.js';
import { optional, selected } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { registerConsumers } from './consumers/index.js';
import { InstallationModel, RepositoryModel } from './models/index.js';
import { codehostOptionsSchema, type CodehostOptions } from './options.js';
import { signInRoutes } from './routes/auth.js';
import { codehostRoutes } from './routes/codehost.js';
import type { CodehostRouteServices } from './routes/context.js';
import { repositoryRoutes } from './routes/repositories.js';
import { setupRoutes } from './routes/setup.js';
import { CodeIndexService } from './services/code-index.js';
import { CommentService } from './services/comments.js';
import { hasPages, type CodehostDeps } from './services/deps.js';
import { EventHandler } from './services/events.js';
import { GitRemote } from './services/git-remote.js';
import { InstallationService } from './services/installations.js';
import { IntakeService } from './services/intake.js';
import { OssService } from './services/oss.js';
import { RepositoryService } from './services/repositories.js';
import { RepositoryOpenSource } from './services/repository-open-source.js';
import { OAUTH_COOKIE, SignInService } from './services/sign-in.js';
import { StateStore } from './services/states.js';
import { WebhookService } from './services/webhooks.js';

/**
 * Code host: installations of the app, webhooks, connected repositories, open-source intake
 * (issues and pull requests as tickets), code-host sign-in and linking, and the code index.
 * See docs/codehost.md.
 *
 * Container entries for other plugins: `codeIndex` (search, tree, symbols of a repository),
 * `codehostRepositories` (load a connected repository and its RepoRef for CodeHost calls),
 * `codehostComments` (comments within oss_comments_per_hour).
 */
export default definePlugin<CodehostOptions>({
  name: 'codehost',
  version: '1.0.0',
  requires: ['accounts', 'workspaces'],
  uses: ['codeHost'],
  options: codehostOptionsSchema,
  register(ctx) {
    const { container, config, options } = ctx;
    const cradle = container.cradle;

    let tempCache: string | null = null;
    let cacheDir: Promise<string> | null = null;
    const deps: CodehostDeps = {
      db: cradle.db,
      outbox: cradle.outbox,
      audit: cradle.audit,
      secretBox: cradle.secretBox,
      rateLimiter: cradle.rateLimiter,
      config,
      log: ctx.log,
      host: selected(cradle.codeHost, 'codeHost'),
      options,
      workspaces: () => cradle.workspaceService,
      planLimits: () => optional(container, 'planLimits') ?? null,
      tickets: () => optional(container, 'ticketService') ?? null,
      sessions: () => optional(container, 'sessionService') ?? null,
      accounts: () => optional(container, 'authService') ?? null,
      cacheDir: () =>
        (cacheDir ??=
          config.dataDir === ':memory:'
            ? mkdtemp(join(tmpdir(), 'patchwell-codeindex-')).then((d) => (tempCache = d))
            : Promise.resolve(resolve(config.dataDir, 'codehost-cache'))),
    };

    const git = new GitRemote(deps.cacheDir);
    const oss = new OssService(deps);
    const repositories = new RepositoryService(deps, git);
    const repositoryOpenSource = new RepositoryOpenSource(
      deps,
      () => repositories,
      () => oss,
    );
    const installations = new InstallationService(deps, () => repositories);
    const intake = new IntakeService(deps, () => oss);
    const codeIndex = new CodeIndexService(deps, git, () => repositories);
    const comments = new CommentService(deps, () => repositories);
    const events = new EventHandler(
      deps,
      () => installations,
      () => repositories,
      () => intake,
    );
    const webhooks = new WebhookService(deps);
    const signIn = new SignInService(deps);
    const states = new StateStore(deps.db);

    ctx.provide({
      codeIndex: asValue(codeIndex),
      codehostRepositories: asValue(repositories),
      codehostComments: asValue(comments),
    });

    const services: CodehostRouteServices = {
      installations,
      repositories,
      repositoryOpenSource,
      oss,
      webhooks,
      signIn,
      codeIndex,
    };
    ctx.server.state(OAUTH_COOKIE, {
      ttl: options.signInStateTtlMinutes * 60_000,
      isSecure: config.server.publicBaseUrl.startsWith('https:'),
      isHttpOnly: true,
      isSameSite: 'Lax',
      path: '/v1/auth/codehost',
      encoding: 'none',
      ignoreErrors: true,
      clearInvalid: true,
    });
    ctx.routes([
      ...codehostRoutes(services, { webhookMaxBytes: options.webhookMaxBytes }),
      ...repositoryRoutes(services),
      ...signInRoutes(services, config),
    ]);

    // The code host's setup redirect links the installation and sends the browser on with its chi_ id (routes/setup.ts).
    ctx.server.route(setupRoutes(services, options, config.server.publicBaseUrl.replace(/\/+$/, '')));

    // The local host's own pages (a pull request and its diff, install and sign-in pages): HTML,
    // no operation id, so they stay out of the OpenAPI document.
    if (hasPages(deps.host)) {
      const canView = async (request: Request, fullName: string): Promise<boolean> => {
        const principal = principalOf(request);
        if (!principal) return false;
        const owner = fullName.split('/')[0] ?? '';
        const inst = await InstallationModel.query(deps.db)
          .forOrg(principal.orgId)
          .where({ host: deps.host.identifier, account_login: owner })
          .whereNull('removed_at')
          .limit(1)
          .first();
        return !!inst;
      };
      // The files of a public repository are public, as on any host: a customer opens the documentation links of a reply.
      const canReadFiles = async (request: Request, fullName: string): Promise<boolean> =>
        (await deps.host.getRepository({ installationId: null, fullName }).then(
          (r) => r.isPublic,
          () => false,
        )) || canView(request, fullName);
      ctx.server.route(deps.host.pageRoutes({ canView, canReadFiles }));
    }

    registerConsumers(ctx, { deps, events, codeIndex, comments, repositories });

    ctx.schedule('flush-comments', { everyMs: options.commentFlushSeconds * 1000 }, async () => {
      await comments.flush();
    });
    ctx.schedule('purge', { everyMs: 6 * 60 * 60_000 }, async () => {
      await states.purge();
      await webhooks.purge();
    });
    if (options.index.refreshMinutes > 0) {
      // A default branch that moved without a push event (missed delivery, local pushes) is indexed again.
      ctx.schedule('index-freshness', { everyMs: options.index.refreshMinutes * 60_000 }, async () => {
        const rows = await RepositoryModel.query(deps.db)
          .acrossOrgs('index freshness sweep')
          .whereIn('index_status', ['ready', 'failed'])
          .limit(500);
        for (const row of rows) {
          try {
            const ref = await repositories.ref(row.org_id, row);
            const branch = await deps.host.getBranch(ref, row.default_branch);
            if (branch && branch.sha !== row.indexed_sha)
              await deps.db.transaction((trx) => repositories.requestIndex(trx, row, branch.sha));
          } catch (err) {
            ctx.log.debug({ err, repositoryId: row.id }, 'index freshness check skipped');
          }
        }
      });
    }
    ctx.onStop(async () => {
      if (tempCache) await rm(tempCache, { recursive: true, force: true, maxRetries: 3 });
    });
  },
});
