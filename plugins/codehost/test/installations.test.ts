import t from 'tap';
import type { Schema } from '../../../test/helpers/api-types.js';
import { call, codehostWorld, installAndLink } from './helpers.js';

t.test('code host installations: install, link, read, sync, unlink; another organization gets 404', async (t) => {
  const { app, owner, other, host, slug } = await codehostWorld(t);
  await host.createRepository(`${slug}/web`, { isPublic: true, files: { 'README.md': '# Web\n' } });
  await host.createRepository(`${slug}/api`, { files: { 'README.md': '# API\n' } });

  let inst!: Schema<'CodeHostInstallation'>; // linked by the first subtest
  await t.test(
    'the install URL carries a single-use state; the local host sends the browser back with the installation',
    async (t) => {
      const status0 = await call(app, owner, 'GET', '/v1/codehost');
      t.equal(status0.status, 200);
      t.match(status0.body, {
        app: {
          host: 'codehost-local',
          install_available: true,
          sign_in_available: true,
          webhook_url: 'http://localhost:3000/v1/webhooks/codehost',
        },
        installations: [],
        link: { linked: false, login: null },
      });

      const start = await call(app, owner, 'POST', '/v1/codehost/install');
      t.equal(start.status, 200);
      t.match(start.body.url, /^http:\/\/localhost:3000\/codehost\/local\/install\?state=chs_/);
      const page = await app.server.inject({
        method: 'GET',
        url: new URL(start.body.url).pathname + new URL(start.body.url).search,
      });
      t.equal(page.statusCode, 302);
      const back = new URL(String(page.headers.location));
      t.equal(back.pathname, '/codehost/setup', "the host comes back to the service's setup route");
      t.equal(back.searchParams.get('state'), start.body.state);

      const forged = await call(app, owner, 'POST', '/v1/codehost/installations', {
        installation_id: back.searchParams.get('installation_id'),
        state: 'chs_forged',
      });
      t.equal(forged.status, 400);
      t.equal(forged.body.code, 'invalid_state');
      const stolen = await call(app, other, 'POST', '/v1/codehost/installations', {
        installation_id: back.searchParams.get('installation_id'),
        state: start.body.state,
      });
      t.equal(stolen.status, 400, "another organization cannot use this organization's state");

      const linked = await call(app, owner, 'POST', '/v1/codehost/installations', {
        installation_id: back.searchParams.get('installation_id'),
        state: start.body.state,
      });
      t.equal(linked.status, 201, JSON.stringify(linked.body));
      inst = linked.body;
      t.match(inst, {
        org_id: owner.organization.id,
        host: 'codehost-local',
        account: { login: slug, type: 'organization' },
        repository_selection: 'all',
        suspended_at: null,
        removed_at: null,
        repositories_connected: 0,
      });
      const reused = await call(app, owner, 'POST', '/v1/codehost/installations', {
        installation_id: inst.external_id,
        state: start.body.state,
      });
      t.equal(reused.status, 400, 'the state is single use');

      const again = await installAndLink(app, owner);
      t.equal(again.id, inst.id, 'linking the same installation again answers it');
      const audit = await app
        .db('audit_entries')
        .where({ org_id: owner.organization.id, action: 'codehost.installation_linked' });
      t.equal(audit.length, 1, 'linking is audited once');
      t.equal((await call(app, owner, 'GET', '/v1/codehost')).body.installations.length, 1);
    },
  );

  await t.test(
    'the setup redirect links the installation and lands on the console page with the chi_ id the API uses',
    async (t) => {
      const start = await call(app, owner, 'POST', '/v1/codehost/install');
      const setup = new URL(
        String(
          (
            await app.server.inject({
              method: 'GET',
              url: new URL(start.body.url).pathname + new URL(start.body.url).search,
            })
          ).headers.location,
        ),
      );
      const follow = (headers: Record<string, string> = {}) =>
        app.server.inject({ method: 'GET', url: setup.pathname + setup.search, headers });

      const anonymous = await follow();
      t.equal(anonymous.statusCode, 302);
      const signIn = new URL(String(anonymous.headers.location), 'http://localhost:3000');
      t.equal(signIn.pathname, '/login', 'without a session: the sign-in page first');
      t.equal(signIn.searchParams.get('redirect_to'), setup.pathname + setup.search, '…which comes back here');

      const landed = await follow(owner.auth.headers);
      t.equal(landed.statusCode, 302);
      const to = new URL(String(landed.headers.location), 'http://localhost:3000');
      t.equal(to.pathname, '/settings/code-host/installed');
      t.same(
        Object.fromEntries(to.searchParams),
        { installation_id: inst.id, setup_action: 'install' },
        "the API's id (chi_…), not the host's",
      );
      t.match(inst.id, /^chi_/);
      t.equal(
        (
          await call(
            app,
            owner,
            'GET',
            `/v1/codehost/installations/${to.searchParams.get('installation_id')}/repositories`,
          )
        ).status,
        200,
        'the page can read the installation with it',
      );

      const again = new URL(String((await follow(owner.auth.headers)).headers.location), 'http://localhost:3000');
      t.same(Object.fromEntries(again.searchParams), { error: 'invalid_state' }, 'the state is single use');
      const odd = await app.server.inject({
        method: 'GET',
        url: '/codehost/setup?installation_id=../x&state=s',
        headers: owner.auth.headers,
      });
      t.same(
        Object.fromEntries(new URL(String(odd.headers.location), 'http://localhost:3000').searchParams),
        { error: 'invalid_request' },
        'bad input is a redirect with the error, never a 500',
      );
    },
  );

  await t.test('the repositories an installation reaches, paginated by name', async (t) => {
    const page1 = await call(app, owner, 'GET', `/v1/codehost/installations/${inst.id}/repositories?limit=1`);
    t.equal(page1.status, 200);
    t.same(
      page1.body.items.map((r) => r.full_name),
      [`${slug}/api`],
    );
    t.ok(page1.body.next_cursor);
    const page2 = await call(
      app,
      owner,
      'GET',
      `/v1/codehost/installations/${inst.id}/repositories?limit=1&cursor=${page1.body.next_cursor}`,
    );
    t.match(page2.body.items, [
      { full_name: `${slug}/web`, is_public: true, default_branch: 'main', repository_id: null, workspace_id: null },
    ]);
    t.equal(page2.body.next_cursor, null);
  });

  await t.test('sync re-reads suspension; the change is audited', async (t) => {
    await host.setInstallationSuspended(inst.external_id, true);
    const res = await call(app, owner, 'POST', `/v1/codehost/installations/${inst.id}/sync`);
    t.equal(res.status, 200);
    t.ok(res.body.suspended_at, 'suspended');
    t.ok(res.body.last_synced_at);
    t.equal(
      (await app.db('audit_entries').where({ org_id: owner.organization.id, action: 'codehost.installation_synced' }))
        .length,
      1,
    );
    await host.setInstallationSuspended(inst.external_id, false);
    t.equal((await call(app, owner, 'POST', `/v1/codehost/installations/${inst.id}/sync`)).body.suspended_at, null);
  });

  await t.test("another organization's installation answers 404", async (t) => {
    for (const [method, url] of [
      ['GET', `/v1/codehost/installations/${inst.id}/repositories`],
      ['POST', `/v1/codehost/installations/${inst.id}/sync`],
      ['DELETE', `/v1/codehost/installations/${inst.id}`],
    ] as const) {
      const res = await call(app, other, method, url);
      t.equal(res.status, 404, `${method} ${url}`);
      t.equal(res.body.code, 'not_found');
    }
    t.same((await call(app, other, 'GET', '/v1/codehost')).body.installations, []);
  });

  await t.test('unlinking disconnects the repositories', async (t) => {
    const ws = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Web' });
    const repo = await call(app, owner, 'POST', '/v1/repositories', {
      installation_id: inst.id,
      workspace_id: ws.body.id,
      full_name: `${slug}/web`,
    });
    t.equal(repo.status, 201, JSON.stringify(repo.body));
    const res = await call(app, owner, 'DELETE', `/v1/codehost/installations/${inst.id}`);
    t.equal(res.status, 200);
    t.same(res.body, { ok: true, disconnected_repository_ids: [repo.body.id] });
    t.equal((await call(app, owner, 'GET', `/v1/repositories/${repo.body.id}`)).status, 404);
    t.equal((await call(app, owner, 'GET', '/v1/codehost')).body.installations.length, 0);
    t.equal(
      (await app.db('audit_entries').where({ org_id: owner.organization.id, action: 'repository.disconnected' }))
        .length,
      1,
    );
  });
});
