import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { asValue } from 'awilix';
import { addMember, insertWorkspace } from '../../../test/helpers/accounts.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { call, codehostWorld, createWorkspace, installAndLink, waitFor } from './helpers.js';

const LOGIN_TS = `export interface Session { user: string }

export function handleLoginError(err: Error): string {
  return 'Login failed: ' + err.message;
}

export class LoginForm {
  submit(password: string) {
    return password.length > 0;
  }
}
`;

t.test(
  'repositories: connect with plan limits, read, agent key, guidelines, labels, onboarding pull request, refresh, code index, disconnect',
  async (t) => {
    const { app, owner, other, host, slug } = await codehostWorld(t);
    await host.createRepository(`${slug}/web`, {
      isPublic: true,
      files: {
        'README.md': '# Web\n',
        'CONTRIBUTING.md': '# Contributing\nOpen an issue first.\n',
        '.github/CODE_OF_CONDUCT.md': 'Be kind.\n',
        'src/login.ts': LOGIN_TS,
        'node_modules/x/index.js': 'function vendored() {}\n',
      },
    });
    await host.createRepository(`${slug}/api`, { files: { 'README.md': '# API\n' } });
    const inst = await installAndLink(app, owner);
    const ws = await createWorkspace(app, owner, 'Web');
    // A second workspace outside the none plan's one (the plan limits of repositories are tested on this plan).
    const ws2 = await insertWorkspace(app, owner.organization.id, { name: 'Api' });

    /** POST /v1/repositories as `who`: the installation's repository `name` into workspace `into`. */
    const connect = (who: typeof owner, workspace: { id: string }, name: string) =>
      call(app, who, 'POST', '/v1/repositories', {
        installation_id: inst.id,
        workspace_id: workspace.id,
        full_name: `${slug}/${name}`,
      });
    let repo!: Schema<'Repository'>; // connected by the first subtest, again after the disconnection
    await t.test('an owner connects a repository; the code index is built in the background', async (t) => {
      const res = await connect(owner, ws, 'web');
      t.equal(res.status, 201, JSON.stringify(res.body));
      repo = res.body;
      t.match(repo, {
        org_id: owner.organization.id,
        workspace_id: ws.id,
        installation_id: inst.id,
        full_name: `${slug}/web`,
        default_branch: 'main',
        is_public: true,
        agent_key: { last4: null },
        onboarding_pr: { status: 'none' },
      });
      t.equal(
        (await app.db('audit_entries').where({ action: 'repository.connected', target_id: repo.id })).length,
        1,
        'audited',
      );

      const ready = await waitFor(async () => {
        const r = await call(app, owner, 'GET', `/v1/repositories/${repo.id}`);
        return r.body.index.status === 'ready' || r.body.index.status === 'failed' ? r.body : null;
      }, 'the code index');
      t.match(ready.index, { status: 'ready', files: 4, error: null });
      t.ok(ready.index.symbols >= 3, 'symbols found');
      const codeIndex = app.container.resolve('codeIndex');
      const defs = await codeIndex.search(owner.organization.id, repo.id, 'handleLoginError');
      t.match(defs[0], { path: 'src/login.ts', symbol: 'handleLoginError', line_start: 3 });
      t.match(defs[0].snippet, /export function handleLoginError/);
      const text = await codeIndex.search(owner.organization.id, repo.id, 'login failed');
      t.match(text[0], { path: 'src/login.ts', symbol: 'handleLoginError' });
      t.match(text[0].snippet, /Login failed/);
      t.same(await codeIndex.search(other.organization.id, repo.id, 'login'), [], 'another organization finds nothing');
      t.same(await codeIndex.search(owner.organization.id, repo.id, 'vendored'), [], 'vendored files are not searched');
      t.ok(
        (await codeIndex.tree(owner.organization.id, repo.id)).some(
          (f) => f.path === 'node_modules/x/index.js' && f.indexed === false,
        ),
        'but listed',
      );
    });

    await t.test('plan limits: a second repository in the workspace is refused with 402', async (t) => {
      const res = await connect(owner, ws, 'api');
      t.equal(res.status, 402, JSON.stringify(res.body));
      t.match(res.body, { code: 'plan_limit_reached', details: { reason: 'repositories_per_workspace' } });
      const taken = await connect(owner, ws2, 'web');
      t.equal(taken.status, 409);
      t.match(taken.body, { code: 'repository_already_connected', details: { repository_id: repo.id } });
      const missing = await connect(owner, ws2, 'nope');
      t.equal(missing.status, 422);
      t.equal(missing.body.code, 'repository_not_in_installation');
    });

    await t.test('plan limits: the open-source plan takes public repositories only', async (t) => {
      await app.db('organizations').where({ id: owner.organization.id }).update({ plan: 'open_source' });
      const res = await connect(owner, ws2, 'api');
      t.equal(res.status, 402, JSON.stringify(res.body));
      t.match(res.body, { code: 'plan_limit_reached', details: { reason: 'public_repos_only' } });
      await app.db('organizations').where({ id: owner.organization.id }).update({ plan: 'none' });
    });

    await t.test('without the billing plugin a stub planLimits is honoured the same way', async (t) => {
      const saved = app.container.resolve('planLimits');
      app.container.register(
        'planLimits',
        asValue({
          assert: async () => {
            const { httpError } = await import('../../../core/http/errors.js');
            throw httpError(402, 'plan_limit_reached', 'stub', { reason: 'repositories_per_workspace' });
          },
        }),
      );
      const res = await connect(owner, ws2, 'api');
      t.equal(res.status, 402);
      app.container.register('planLimits', asValue(saved));
    });

    await t.test('the agent key becomes a CI secret; only its last four characters stay', async (t) => {
      const res = await call(app, owner, 'PUT', `/v1/repositories/${repo.id}/agent-key`, {
        key: 'pwk_live_0123456789abcd',
      });
      t.equal(res.status, 200);
      t.equal(res.body.agent_key.last4, 'abcd');
      t.ok(res.body.agent_key.set_at);
      t.equal(await host.readSecret(`${slug}/web`, 'PATCHWELL_AGENT_KEY'), 'pwk_live_0123456789abcd');
      const stored = JSON.stringify(await app.db('repositories').where({ id: repo.id }).first());
      t.notMatch(stored, /0123456789abcd/, 'the key is not stored here');
      const audit = await app
        .db('audit_entries')
        .where({ action: 'repository.agent_key_set', target_id: repo.id })
        .first<Record<string, unknown>>();
      t.notMatch(JSON.stringify(audit), /0123456789/, 'nor in the audit log');
    });

    await t.test('guidelines of a public repository; the labels; the onboarding pull request', async (t) => {
      const g = await call(app, owner, 'POST', `/v1/repositories/${repo.id}/guidelines`);
      t.equal(g.status, 200);
      t.match(g.body.guidelines, {
        contributing: { path: 'CONTRIBUTING.md', excerpt: /Open an issue first/ },
        code_of_conduct: { path: '.github/CODE_OF_CONDUCT.md' },
      });

      const l = await call(app, owner, 'POST', `/v1/repositories/${repo.id}/labels`);
      t.equal(l.status, 200);
      t.ok(l.body.labels_created_at);
      t.same(
        (await host.listLabels(`${slug}/web`)).map((x) => x.name),
        ['patchwell', 'patchwell-ignore'],
      );

      const pr = await call(app, owner, 'POST', `/v1/repositories/${repo.id}/onboarding-pr`);
      t.equal(pr.status, 200, JSON.stringify(pr.body));
      t.match(pr.body.onboarding_pr, {
        status: 'open',
        number: 1,
        error: null,
        title: 'Set up Patchwell',
        url: /\/codehost\/local\/acme\/web\/pull\/1$/,
      });
      const ref = { installationId: null, fullName: `${slug}/web` };
      const workflow = await host.readFile(ref, '.github/workflows/patchwell.yml', 'refs/heads/patchwell/onboarding');
      t.match(workflow?.content.toString(), /PATCHWELL_AGENT_KEY: \$\{\{ secrets\.PATCHWELL_AGENT_KEY \}\}/);
      t.match(
        (await host.readFile(ref, '.patchwell.yml', 'refs/heads/patchwell/onboarding'))?.content.toString(),
        /workspace: web/,
      );
      const again = await call(app, owner, 'POST', `/v1/repositories/${repo.id}/onboarding-pr`);
      t.equal(again.body.onboarding_pr.number, 1, 'the open pull request is updated, not opened twice');

      const page = await app.server.inject({
        method: 'GET',
        url: `/codehost/local/${slug}/web/pull/1`,
        headers: owner.auth.headers,
      });
      t.equal(page.statusCode, 200);
      t.match(page.payload, /Set up Patchwell/);
      t.match(page.payload, /\+name: Patchwell/, 'the diff is shown');
      const foreign = await app.server.inject({
        method: 'GET',
        url: `/codehost/local/${slug}/web/pull/1`,
        headers: other.auth.headers,
      });
      t.equal(foreign.statusCode, 404, "another organization cannot see the local host's pages");

      t.equal(
        (await call(app, owner, 'DELETE', `/v1/repositories/${repo.id}`)).status,
        200,
        'disconnected (connected again below)',
      );
    });

    await t.test('refresh re-reads visibility; a private repository has no guidelines to read', async (t) => {
      const res = await connect(owner, ws, 'web');
      t.equal(res.status, 201, JSON.stringify(res.body));
      repo = res.body;
      await host.setRepositorySettings(`${slug}/web`, { isPublic: false });
      const r = await call(app, owner, 'POST', `/v1/repositories/${repo.id}/refresh`);
      t.equal(r.status, 200);
      t.equal(r.body.is_public, false);
      t.equal((await app.db('audit_entries').where({ action: 'repository.refreshed', target_id: repo.id })).length, 1);
      const g = await call(app, owner, 'POST', `/v1/repositories/${repo.id}/guidelines`);
      t.equal(g.status, 422);
      t.equal(g.body.code, 'repository_not_public');
    });

    await t.test('lists, roles and another organization', async (t) => {
      const list = await call(app, owner, 'GET', `/v1/repositories?workspace_id=${ws.id}`);
      t.same(
        list.body.items.map((r) => r.id),
        [repo.id],
      );
      t.same((await call(app, other, 'GET', '/v1/repositories')).body.items, []);
      for (const [method, url, payload] of [
        ['GET', `/v1/repositories/${repo.id}`, undefined],
        ['DELETE', `/v1/repositories/${repo.id}`, undefined],
        ['PUT', `/v1/repositories/${repo.id}/agent-key`, { key: 'pwk_other_12345678' }],
        ['POST', `/v1/repositories/${repo.id}/guidelines`, undefined],
        ['POST', `/v1/repositories/${repo.id}/labels`, undefined],
        ['POST', `/v1/repositories/${repo.id}/onboarding-pr`, undefined],
        ['POST', `/v1/repositories/${repo.id}/refresh`, undefined],
      ] as const) {
        const res = await call(app, other, method, url, payload);
        t.equal(res.status, 404, `${method} ${url}`);
      }
      const foreignInst = await connect(other, ws, 'api');
      t.equal(foreignInst.status, 404, "another organization's installation and workspace are not found");
      const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [ws.id] });
      t.equal((await call(app, reviewer, 'GET', `/v1/repositories/${repo.id}`)).status, 200);
      t.equal((await call(app, reviewer, 'POST', `/v1/repositories/${repo.id}/refresh`)).status, 403);
    });

    await t.test('disconnecting deletes the code index and its cache', async (t) => {
      await waitFor(
        async () => (await call(app, owner, 'GET', `/v1/repositories/${repo.id}`)).body.index?.status === 'ready',
        'the index',
      );
      const cacheRoot = await (
        app.container.resolve('codeIndex') as unknown as { d: { cacheDir: () => Promise<string> } }
      ).d.cacheDir();
      t.ok(existsSync(join(cacheRoot, `${repo.id}.git`)), 'a cache exists');
      const res = await call(app, owner, 'DELETE', `/v1/repositories/${repo.id}`);
      t.same(res.body, { ok: true });
      t.equal(Number((await app.db('code_index_chunks').where({ repository_id: repo.id }).count({ n: '*' }))[0].n), 0);
      t.notOk(existsSync(join(cacheRoot, `${repo.id}.git`)), 'the cache is gone');
      t.equal((await call(app, owner, 'GET', `/v1/repositories/${repo.id}`)).status, 404);
    });
  },
);
