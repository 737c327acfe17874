import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createPkcePair, isAdapterError } from '../../../core/contracts/index.js';
import { SecretBox } from '../../../core/security/secret-box.js';
import { runCodeHostContract } from '../../../test/contracts/code-host.js';
import { createTestDb } from '../../../test/helpers/db.js';
import { signedDelivery } from '../../../test/helpers/codehost.js';
import mod, { LocalCodeHost } from '../index.js';
import { git } from '../git.js';

const SECRET = 'local-webhook-secret-0123456789';

t.test('codehost-local', async (t) => {
  const { db, config, close } = await createTestDb();
  const root = await mkdtemp(join(tmpdir(), 'pw-local-kit-'));
  t.teardown(async () => {
    await close();
    await rm(root, { recursive: true, force: true });
  });
  const secretBox = new SecretBox('k1:' + Buffer.alloc(32, 3).toString('base64'));
  const create = (extra: Record<string, unknown> = {}) =>
    new LocalCodeHost(
      LocalCodeHost.validateOptions({
        webhookSecret: SECRET,
        root,
        users: [{ login: 'ada', email: 'ada@example.test', password: 'lovelace-1815' }],
        ...extra,
      }),
      {
        config: { ...config, server: { ...config.server, publicBaseUrl: 'http://localhost:3000' } },
        log: undefined,
        db,
        secretBox,
      },
    );

  const host = create();
  await host.createRepository('kit/app', {
    isPublic: true,
    files: { 'README.md': '# Kit\n', 'src/app.js': 'console.log(1)\n' },
  });
  await host.commitFiles('kit/app', {
    branch: 'feature',
    base: 'main',
    files: { 'src/app.js': 'console.log(2)\n' },
    message: 'Change the app',
  });

  const { headers, rawBody } = signedDelivery('issues', 'opened', SECRET);
  const signed = { headers, rawBody };

  await t.test('the CodeHost contract kit passes', (t) =>
    runCodeHostContract(t, {
      name: 'codehost-local',
      create: () => create(),
      module: mod,
      options: {
        valid: { webhookSecret: SECRET, users: [] },
        invalid: [
          { options: { webhookSecret: 'short' }, key: 'webhookSecret' },
          { options: { users: [{ login: 'ada' }] }, key: 'users' },
        ],
      },
      validateOptions: (o) => LocalCodeHost.validateOptions(o),
      webhooks: { signed, expectKind: 'issue' },
      repository: { ref: { installationId: null, fullName: 'kit/app' }, file: 'README.md' },
      pullRequest: { head: 'feature' },
    }),
  );

  await t.test('the git flow: branch, commit, pull request, merge at the approved sha, tag, release', async (t) => {
    const ref = { installationId: null, fullName: 'acme/web' };
    const repo = await host.createRepository('acme/web', {
      files: { 'README.md': '# Web\n', 'src/login.js': 'export const login = () => false;\n' },
    });
    t.equal(repo.defaultBranch, 'main');
    t.equal(repo.isPublic, false);
    const main0 = (await host.getBranch(ref, 'main'))!.sha;
    /** The parents of a commit of acme/web, as git lists them. */
    const parentsOf = async (sha: string) =>
      (await git(['rev-list', '--parents', '-n', '1', sha], { gitDir: join(root, 'acme', 'web.git') })).stdout
        .toString()
        .trim()
        .split(' ')
        .slice(1);

    const c1 = await host.commitFiles('acme/web', {
      branch: 'patchwell/tkt_1-1',
      base: 'main',
      files: { 'src/login.js': 'export const login = () => true;\n' },
      message: 'Fix login',
    });
    const pr = await host.openPullRequest(ref, {
      head: 'patchwell/tkt_1-1',
      base: 'main',
      title: 'Fix login',
      body: 'Fixes #1',
    });
    t.equal(pr.head.sha, c1);
    t.match((await host.compare(ref, 'main', 'patchwell/tkt_1-1')).diff, /\+export const login = \(\) => true;/);
    await t.rejects(host.openPullRequest(ref, { head: 'patchwell/tkt_1-1', base: 'main', title: 'again', body: '' }), {
      code: 'already_exists',
    });

    // The branch moves after approval: the approved sha no longer matches.
    const c2 = await host.commitFiles('acme/web', {
      branch: 'patchwell/tkt_1-1',
      files: { 'NOTES.md': 'late\n' },
      message: 'Late change',
    });
    await t.rejects(host.mergePullRequest(ref, pr.number, { method: 'squash', sha: c1 }), { code: 'sha_mismatch' });
    await host.setCommitStatus('acme/web', c2, { context: 'ci/test', state: 'failure' });
    await t.rejects(
      host.mergePullRequest(ref, pr.number, { method: 'squash', sha: c2 }),
      { code: 'not_mergeable' },
      'failing checks block the merge',
    );
    await host.setCommitStatus('acme/web', c2, { context: 'ci/test', state: 'success' });
    t.same(await host.getCommitStatus(ref, c2), { state: 'success', checks: [{ name: 'ci/test', state: 'success' }] });

    const squash = await host.mergePullRequest(ref, pr.number, { method: 'squash', sha: c2 });
    const merged = (await host.getPullRequest(ref, pr.number))!;
    t.equal(merged.state, 'merged');
    t.equal(merged.mergeSha, squash.sha);
    t.equal((await host.getBranch(ref, 'main'))!.sha, squash.sha, 'main moved to the squash commit');
    t.equal((await host.readFile(ref, 'src/login.js'))!.content.toString(), 'export const login = () => true;\n');
    t.same(await parentsOf(squash.sha), [main0], 'a squash commit has one parent');
    await t.rejects(
      host.mergePullRequest(ref, pr.number, { method: 'squash', sha: c2 }),
      { code: 'not_mergeable' },
      'merged once',
    );

    // merge: a merge commit with two parents
    const c3 = await host.commitFiles('acme/web', {
      branch: 'feat-a',
      base: 'main',
      files: { 'a.txt': 'a\n' },
      message: 'Add a',
    });
    const pr2 = await host.openPullRequest(ref, { head: 'feat-a', base: 'main', title: 'A', body: '' });
    const m = await host.mergePullRequest(ref, pr2.number, { method: 'merge', sha: c3 });
    t.equal((await parentsOf(m.sha)).length, 2, 'a merge commit has two parents');

    // rebase: commits replayed one by one
    await host.commitFiles('acme/web', {
      branch: 'feat-b',
      base: 'main',
      files: { 'b1.txt': '1\n' },
      message: 'B one',
    });
    const b2 = await host.commitFiles('acme/web', { branch: 'feat-b', files: { 'b2.txt': '2\n' }, message: 'B two' });
    await host.commitFiles('acme/web', { branch: 'main', files: { 'main.txt': 'moved\n' }, message: 'Main moves' });
    const pr3 = await host.openPullRequest(ref, { head: 'feat-b', base: 'main', title: 'B', body: '' });
    const r = await host.mergePullRequest(ref, pr3.number, { method: 'rebase', sha: b2 });
    const subjects = (await git(['log', '--format=%s', '-3', r.sha], { gitDir: join(root, 'acme', 'web.git') })).stdout
      .toString()
      .trim()
      .split('\n');
    t.same(subjects, ['B two', 'B one', 'Main moves'], 'rebased on the moved main');

    // conflicts
    await host.commitFiles('acme/web', {
      branch: 'conflict',
      base: `${main0}`,
      files: { 'src/login.js': 'export const login = () => null;\n' },
      message: 'Conflicting',
    });
    const pr4 = await host.openPullRequest(ref, { head: 'conflict', base: 'main', title: 'Conflict', body: '' });
    const cs = (await host.getPullRequest(ref, pr4.number))!.head.sha;
    await t.rejects(host.mergePullRequest(ref, pr4.number, { method: 'merge', sha: cs }), { code: 'not_mergeable' });
    t.equal((await host.getBranch(ref, 'main'))!.sha, r.sha, 'a refused merge leaves main alone');

    // tags and releases
    t.same(await host.createTag(ref, { name: 'v1.0.0', sha: r.sha, message: 'Release 1.0.0' }), {
      name: 'v1.0.0',
      sha: r.sha,
    });
    t.same(
      await host.createTag(ref, { name: 'v1.0.0', sha: r.sha }),
      { name: 'v1.0.0', sha: r.sha },
      'the same tag again succeeds',
    );
    await t.rejects(host.createTag(ref, { name: 'v1.0.0', sha: squash.sha }), { code: 'tag_exists' });
    const rel = await host.createRelease(ref, { tag: 'v1.0.0', name: '1.0.0', body: 'Login works' });
    t.match(rel.url, /^http:\/\/localhost:3000\/codehost\/local\/acme\/web\/releases\/tag\/v1\.0\.0$/);
    t.equal(
      (await host.createRelease(ref, { tag: 'v1.0.0', name: '1.0.0', body: 'again' })).id,
      rel.id,
      'a release per tag',
    );
    t.equal((await host.listReleases('acme/web')).length, 1);
  });

  await t.test('issues, labels, comments and closing', async (t) => {
    const ref = { installationId: null, fullName: 'acme/web' };
    const issue = await host.openIssue('acme/web', { title: 'Login fails', body: 'It fails', author: 'ada' });
    await host.ensureLabel(ref, { name: 'patchwell', color: '5319E7', description: 'Handled by Patchwell' });
    await host.ensureLabel(ref, { name: 'patchwell', color: '000000' });
    t.same(
      (await host.listLabels('acme/web')).find((l) => l.name === 'patchwell'),
      { name: 'patchwell', color: '000000' },
    );
    await host.addLabels(ref, issue.number, ['patchwell', 'bug']);
    t.same((await host.getIssue('acme/web', issue.number))!.labels, ['patchwell', 'bug']);
    const c = await host.comment(ref, issue.number, 'We are on it');
    t.match(c.url, new RegExp(`/issues/${issue.number}#comment-`));
    await host.closeIssue(ref, issue.number, 'completed');
    await host.closeIssue(ref, issue.number, 'completed');
    t.match(await host.getIssue('acme/web', issue.number), { state: 'closed', stateReason: 'completed' });
    t.equal(await host.getPullRequest(ref, issue.number), null, 'an issue is not a pull request');
  });

  await t.test('secrets are sealed and read back for the local runner', async (t) => {
    const ref = { installationId: null, fullName: 'acme/web' };
    await host.setSecret(ref, 'PATCHWELL_AGENT_KEY', 'pwk_secret_value_1234');
    const row = await db('codehost_local_secrets')
      .where({ repo: 'acme/web', name: 'PATCHWELL_AGENT_KEY' })
      .first<{ value_sealed: string }>();
    t.notMatch(row.value_sealed, /secret_value/);
    t.equal(await host.readSecret('acme/web', 'PATCHWELL_AGENT_KEY'), 'pwk_secret_value_1234');
    await t.rejects(host.setSecret(ref, 'bad name', 'x'), { code: 'invalid_secret_name' });
  });

  await t.test('installations: a built-in one per account, the install page sends the browser back', async (t) => {
    const inst = await host.builtinInstallation('acme', {
      state: 'st_abc',
      setupUrl: 'http://localhost:3000/settings/code-host/setup',
    });
    t.equal((await host.builtinInstallation('acme')).id, inst.id, 'one per account');
    t.same(
      (await host.listRepositories(inst.id)).map((r) => r.fullName),
      ['acme/web'],
    );
    const to = new URL((await host.setupRedirect('st_abc'))!);
    t.same(Object.fromEntries(to.searchParams), { installation_id: inst.id, setup_action: 'install', state: 'st_abc' });
    t.equal(await host.setupRedirect('st_other'), null);
    await t.rejects(host.getInstallation('lin_missing'), { code: 'not_found' });
    await host.setInstallationSuspended(inst.id, true);
    t.ok((await host.getInstallation(inst.id)).suspendedAt instanceof Date);
  });

  await t.test('sign-in: a configured account gets a single-use code bound to the PKCE challenge', async (t) => {
    const pkce = createPkcePair();
    const redirectUri = 'http://localhost:3000/v1/auth/codehost/callback';
    t.equal(
      await host.authorizeWithPassword({
        login: 'ada',
        password: 'wrong-password',
        codeChallenge: pkce.challenge,
        redirectUri,
      }),
      null,
    );
    const code = (await host.authorizeWithPassword({
      login: 'ada',
      password: 'lovelace-1815',
      codeChallenge: pkce.challenge,
      redirectUri,
    }))!;
    await t.rejects(
      host.exchangeCode({ code, codeVerifier: 'not-the-verifier-not-the-verifier-not-the', redirectUri }),
      { code: 'invalid_grant' },
    );
    const code2 = (await host.authorizeWithPassword({
      login: 'ada',
      password: 'lovelace-1815',
      codeChallenge: pkce.challenge,
      redirectUri,
    }))!;
    const user = await host.exchangeCode({ code: code2, codeVerifier: pkce.verifier, redirectUri });
    t.match(user, { login: 'ada', email: 'ada@example.test' });
    try {
      await host.exchangeCode({ code: code2, codeVerifier: pkce.verifier, redirectUri });
      t.fail('a used code works again');
    } catch (err) {
      t.ok(isAdapterError(err, 'invalid_grant'), 'a used code is refused');
    }
  });
});
