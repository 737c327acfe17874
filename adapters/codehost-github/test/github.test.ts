import { createHmac } from 'node:crypto';
import type { WebhookEventName } from '@octokit/webhooks-types';
import t from 'tap';
import { createPkcePair } from '../../../core/contracts/index.js';
import { runCodeHostContract } from '../../../test/contracts/code-host.js';
import { signedDelivery, signPayload, webhookExample } from '../../../test/helpers/codehost.js';
import mod, { GithubCodeHost } from '../index.js';
import { GithubPeer } from './peer.js';

const SECRET = 'github-webhook-secret-0123456789';

t.test('codehost-github against a local GitHub peer', async (t) => {
  const peer = await new GithubPeer().start();
  t.teardown(() => peer.stop());
  peer.addRepo('kit/app', { 'README.md': '# Kit\n', 'src/app.js': 'console.log(1)\n' });
  peer.commit('kit/app', 'feature', { 'src/app.js': 'console.log(2)\n' }, 'main');
  peer.addRepo('acme/private', { 'README.md': '# Private\n' }, { private: true });
  peer.addInstallation('77', 'kit', ['kit/app', 'acme/private']);

  const options = {
    appId: peer.appId,
    appSlug: peer.appSlug,
    privateKey: peer.privateKeyPem,
    webhookSecret: SECRET,
    baseUrl: peer.url,
    webUrl: peer.url,
    oauth: peer.oauthClient,
  };
  const create = () =>
    new GithubCodeHost(GithubCodeHost.validateOptions(options), { config: undefined, log: undefined });
  const ref = { installationId: '77', fullName: 'kit/app' };
  const { headers, rawBody } = signedDelivery('pull_request', 'opened', SECRET);

  await t.test('the CodeHost contract kit passes', (t) =>
    runCodeHostContract(t, {
      name: 'codehost-github',
      create,
      module: mod,
      options: {
        valid: options,
        invalid: [
          { options: { ...options, privateKey: 'not a key' }, key: 'privateKey' },
          { options: { ...options, appId: undefined }, key: 'appId' },
          { options: { ...options, baseUrl: 'ftp://x' }, key: 'baseUrl' },
        ],
      },
      validateOptions: (o) => GithubCodeHost.validateOptions(o),
      webhooks: { signed: { headers, rawBody }, expectKind: 'pull_request' },
      repository: { ref, file: 'README.md' },
      pullRequest: { head: 'feature' },
    }),
  );

  await t.test('installation tokens: minted with the app JWT, cached, minted again when refused', async (t) => {
    const host = create();
    const mints = () => peer.log.filter((l) => l === 'POST /app/installations/77/access_tokens').length;
    const before = mints();
    await host.getRepository(ref);
    await host.getBranch(ref, 'main');
    await host.listRepositories('77');
    t.equal(mints() - before, 1, 'one token for three calls');
    for (const tok of peer.tokens.values()) tok.expiresAt = new Date(Date.now() - 1000);
    await host.getRepository(ref);
    t.equal(mints() - before, 2, 'a refused token is replaced once');
    const inst = await host.getInstallation('77');
    t.match(inst, {
      id: '77',
      account: { login: 'kit', type: 'organization' },
      repositorySelection: 'selected',
      suspendedAt: null,
    });
    t.same(
      (await host.listRepositories('77')).map((r) => [r.fullName, r.isPublic]),
      [
        ['kit/app', true],
        ['acme/private', false],
      ],
    );
    await t.rejects(host.getInstallation('999'), { code: 'not_found' });
  });

  await t.test('a wrong app key is refused by the host', async (t) => {
    const { generateKeyPairSync } = await import('node:crypto');
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ type: 'pkcs8', format: 'pem' })
      .toString();
    const host = new GithubCodeHost(GithubCodeHost.validateOptions({ ...options, privateKey: other }));
    await t.rejects(host.getInstallation('77'), { code: 'unauthorized' });
  });

  await t.test('secrets are sealed with the repository public key', async (t) => {
    await create().setSecret(ref, 'PATCHWELL_AGENT_KEY', 'pwk_live_secret_9876');
    const stored = peer.repos.get('kit/app')!.secrets.get('PATCHWELL_AGENT_KEY')!;
    t.notMatch(stored.encrypted_value, /pwk_live/);
    t.equal(
      peer.openSecret('kit/app', 'PATCHWELL_AGENT_KEY'),
      'pwk_live_secret_9876',
      'the host opens it with its private key',
    );
  });

  await t.test('git access: a token of its own for one repository', async (t) => {
    const access = await create().createGitAccess(ref, { write: true });
    const scope = peer.tokens.get(access.token)!;
    t.same(scope.repositories, ['app']);
    t.same(scope.permissions, { contents: 'write', metadata: 'read' });
    t.equal(access.cloneUrl, `${peer.url}/kit/app.git`);
    t.ok(access.expiresAt.getTime() > Date.now());
  });

  await t.test('merge at the approved sha, draft through GraphQL, tags, releases, CI', async (t) => {
    const host = create();
    const head = peer.commit('kit/app', 'patchwell/tkt_1-1', { 'fix.txt': 'fixed\n' }, 'main');
    const pr = await host.openPullRequest(ref, {
      head: 'patchwell/tkt_1-1',
      base: 'main',
      title: 'Fix',
      body: 'b',
      draft: true,
    });
    t.equal(pr.draft, true);
    await t.rejects(host.openPullRequest(ref, { head: 'patchwell/tkt_1-1', base: 'main', title: 'Fix', body: 'b' }), {
      code: 'already_exists',
    });
    t.equal((await host.updatePullRequest(ref, pr.number, { draft: false })).draft, false, 'ready for review');
    t.match((await host.compare(ref, 'main', 'patchwell/tkt_1-1')).diff, /fix\.txt/);
    const moved = peer.commit('kit/app', 'patchwell/tkt_1-1', { 'fix.txt': 'fixed again\n' });
    await t.rejects(host.mergePullRequest(ref, pr.number, { method: 'squash', sha: head }), { code: 'sha_mismatch' });
    const merged = await host.mergePullRequest(ref, pr.number, { method: 'squash', sha: moved });
    t.match(await host.getPullRequest(ref, pr.number), { state: 'merged', mergeSha: merged.sha });
    t.same(await host.createTag(ref, { name: 'v1.0.0', sha: merged.sha, message: 'Release 1.0.0' }), {
      name: 'v1.0.0',
      sha: merged.sha,
    });
    t.same(
      await host.createTag(ref, { name: 'v1.0.0', sha: merged.sha }),
      { name: 'v1.0.0', sha: merged.sha },
      'an annotated tag at the same commit is fine',
    );
    await t.rejects(host.createTag(ref, { name: 'v1.0.0', sha: head }), { code: 'tag_exists' });
    t.match(await host.createRelease(ref, { tag: 'v1.0.0', name: '1.0.0', body: 'notes' }), {
      url: /\/kit\/app\/releases\/tag\/v1\.0\.0$/,
    });
    t.same(await host.getCommitStatus(ref, merged.sha), { state: 'none', checks: [] });
    peer.repos.get('kit/app')!.checkRuns.set(merged.sha, [
      { name: 'test', status: 'in_progress', conclusion: null },
      { name: 'lint', status: 'completed', conclusion: 'success', html_url: 'http://ci.example.test/1' },
    ]);
    t.same(await host.getCommitStatus(ref, merged.sha), {
      state: 'pending',
      checks: [
        { name: 'test', state: 'pending' },
        { name: 'lint', state: 'success', url: 'http://ci.example.test/1' },
      ],
    });
    await host.ensureLabel(ref, { name: 'patchwell', color: '5319e7', description: 'Handled by Patchwell' });
    await host.ensureLabel(ref, { name: 'patchwell', color: '000000' });
    t.same(peer.repos.get('kit/app')!.labels.get('patchwell'), { name: 'patchwell', color: '000000', description: '' });
  });

  await t.test('user sign-in: authorize URL with PKCE, code exchange, verified primary email', async (t) => {
    const host = create();
    const pkce = createPkcePair();
    const redirectUri = 'http://localhost:3000/v1/auth/codehost/callback';
    const url = new URL(await host.authorizeUrl({ state: 'st_1', codeChallenge: pkce.challenge, redirectUri }));
    t.equal(url.searchParams.get('client_id'), peer.oauthClient.clientId);
    t.equal(url.searchParams.get('code_challenge_method'), 'S256');
    const code = peer.issueCode('octocat', 'octo@example.test', pkce.challenge, redirectUri);
    await t.rejects(
      host.exchangeCode({ code, codeVerifier: createPkcePair().verifier, redirectUri }),
      { code: 'invalid_grant' },
      'another verifier is refused',
    );
    const code2 = peer.issueCode('octocat', 'octo@example.test', pkce.challenge, redirectUri);
    t.match(await host.exchangeCode({ code: code2, codeVerifier: pkce.verifier, redirectUri }), {
      login: 'octocat',
      email: 'octo@example.test',
      token: /^ghu_/,
    });
    const noOauth = new GithubCodeHost(GithubCodeHost.validateOptions({ ...options, oauth: undefined }));
    await t.rejects(noOauth.authorizeUrl({ state: 's', codeChallenge: pkce.challenge, redirectUri }), {
      code: 'not_supported',
    });
  });

  await t.test('real webhook payloads of every event the service reads are verified and read', (t) => {
    const host = create();
    const kinds: Array<[WebhookEventName, string]> = [
      ['issues', 'issue'],
      ['issue_comment', 'issue_comment'],
      ['pull_request', 'pull_request'],
      ['installation', 'installation'],
      ['installation_repositories', 'installation_repositories'],
      ['repository', 'repository'],
      ['push', 'push'],
      ['ping', 'ping'],
    ];
    for (const [event, kind] of kinds) {
      const d = signPayload(event, webhookExample(event), SECRET);
      t.ok(host.verifyWebhook(d.headers, d.rawBody), `${event} verified`);
      const e = host.parseWebhook(d.headers, d.rawBody);
      t.equal(e.kind, kind, `${event} → ${kind}`);
      t.equal(e.deliveryId, d.deliveryId);
    }
    const form = signPayload('ping', webhookExample('ping'), SECRET);
    const formBody = Buffer.from(`payload=${encodeURIComponent(form.rawBody.toString())}`);
    const formHeaders = {
      ...form.headers,
      'content-type': 'application/x-www-form-urlencoded',
      'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(formBody).digest('hex')}`,
    };
    t.ok(host.verifyWebhook(formHeaders, formBody), 'a form-encoded delivery is verified over its raw body');
    t.equal(host.parseWebhook(formHeaders, formBody).kind, 'ping', 'and read from its payload field');
    t.throws(
      () => host.parseWebhook({ 'x-github-event': 'ping' }, Buffer.from('{}')),
      { code: 'invalid_payload' },
      'no delivery id',
    );
    t.end();
  });
});
