/**
 * Contract kit of CodeHost. Every code-host adapter runs it in its own test:
 *
 *   await runCodeHostContract(t, { name: 'codehost-local', create, webhooks: { signed }, repository: { ref, file: 'README.md' } });
 */
import Joi from 'joi';
import {
  CI_STATES,
  CODE_HOST_EVENT_KINDS,
  pkceChallenge,
  type CodeHost,
  type CodeHostEventKind,
  type RepoRef,
  type WebhookDelivery,
} from '../../core/contracts/index.js';
import {
  describeError,
  expectAdapterError,
  forgeriesOf,
  isHttpUrl,
  kitSuffix,
  problems,
  resolveLazy,
  runCommonCases,
  shapes,
  urlParamValues,
  withAdapter,
  type ContractTest,
  type Forgery,
  type KitOptions,
  type Lazy,
} from './common.js';

export interface CodeHostKitOptions extends KitOptions<CodeHost> {
  /** Webhooks: a signed delivery and, optionally, forged ones (headers stripped, garbled and body changed are added). */
  webhooks?: { signed: Lazy<WebhookDelivery>; forged?: Array<Forgery>; expectKind?: CodeHostEventKind };
  /** A repository that exists, with `file` on its default branch. */
  repository?: { ref: RepoRef; file: string };
  /** A branch of `repository` with commits the default branch lacks, for pull request cases. */
  pullRequest?: { head: string };
  /** Sign-in URL cases (default on). */
  oauth?: boolean;
}

const sha = Joi.string().pattern(/^[0-9a-f]{40,64}$/);

const repositorySchema = Joi.object({
  id: shapes.nonEmpty.required(),
  fullName: Joi.string()
    .pattern(/^[^/\s]+\/[^/\s]+$/)
    .required(),
  htmlUrl: shapes.url.required(),
  cloneUrl: Joi.string().min(1).required(),
  defaultBranch: shapes.nonEmpty.required(),
  isPublic: Joi.boolean().required(),
  archived: Joi.boolean().required(),
});

const pullRequestSchema = Joi.object({
  number: Joi.number().integer().min(1).required(),
  url: shapes.url.required(),
  title: Joi.string().required(),
  body: Joi.string().allow('').required(),
  state: Joi.string().valid('open', 'closed', 'merged').required(),
  draft: Joi.boolean().required(),
  head: Joi.object({ branch: shapes.nonEmpty.required(), sha: sha.required() }).required(),
  base: Joi.object({ branch: shapes.nonEmpty.required() }).required(),
  labels: Joi.array().items(Joi.string()).required(),
  mergeSha: sha.allow(null).required(),
});

const treeEntrySchema = Joi.object({
  path: shapes.nonEmpty.required(),
  type: Joi.string().valid('file', 'dir', 'symlink', 'submodule').required(),
  sha: shapes.nonEmpty.required(),
  size: Joi.number().integer().min(0),
});

const ciStatusSchema = Joi.object({
  state: Joi.string()
    .valid(...CI_STATES)
    .required(),
  checks: Joi.array()
    .items(
      Joi.object({
        name: shapes.nonEmpty.required(),
        state: Joi.string()
          .valid(...CI_STATES)
          .required(),
        url: shapes.url,
      }),
    )
    .required(),
});

const eventSchema = Joi.object({
  deliveryId: shapes.nonEmpty.required(),
  kind: Joi.string()
    .valid(...CODE_HOST_EVENT_KINDS)
    .required(),
  name: shapes.nonEmpty.required(),
  action: Joi.string().allow(null).required(),
  installationId: Joi.string().allow(null).required(),
  repository: Joi.object({ id: shapes.nonEmpty.required(), fullName: shapes.nonEmpty.required() })
    .allow(null)
    .required(),
  sender: Joi.object({ login: shapes.nonEmpty.required() }).allow(null).required(),
  payload: shapes.record.required(),
});

export const checkRepository = (v: unknown): string[] => problems(repositorySchema, v);
export const checkPullRequest = (v: unknown): string[] => problems(pullRequestSchema, v);
export const checkTreeEntries = (v: unknown): string[] => problems(Joi.array().items(treeEntrySchema).required(), v);
export const checkCiStatus = (v: unknown): string[] => problems(ciStatusSchema, v);
export const checkCodeHostEvent = (v: unknown): string[] => problems(eventSchema, v);

/** Drives a CodeHost through the cases every code-host adapter must pass. */
export async function runCodeHostContract(t: ContractTest, opts: CodeHostKitOptions): Promise<void> {
  await runCommonCases(t, 'codeHost', opts);

  await t.test('installUrl() carries the state', async (t) => {
    await withAdapter(opts, async (h) => {
      const state = `st_kit${kitSuffix()}`;
      const url = await h.installUrl(state);
      t.ok(isHttpUrl(url), `an http(s) URL: ${url}`);
      t.ok(isHttpUrl(url) && urlParamValues(url).includes(state), 'the state is a query value');
    });
  });

  if (opts.oauth !== false) {
    await t.test('authorizeUrl() carries the state and the PKCE challenge', async (t) => {
      await withAdapter(opts, async (h) => {
        const state = `st_kit${kitSuffix()}`;
        const codeChallenge = pkceChallenge(`verifier-${kitSuffix()}-${kitSuffix()}-${kitSuffix()}`);
        const url = await h.authorizeUrl({
          state,
          codeChallenge,
          redirectUri: 'http://localhost:3000/v1/auth/codehost/callback',
        });
        t.ok(isHttpUrl(url), `an http(s) URL: ${url}`);
        const values = isHttpUrl(url) ? urlParamValues(url) : [];
        t.ok(values.includes(state), 'the state is a query value');
        t.ok(values.includes(codeChallenge), 'the code challenge is a query value');
      });
    });

    await t.test('exchangeCode() refuses a code nobody issued', async (t) => {
      await withAdapter(opts, async (h) => {
        const input = {
          code: `kit-bogus-${kitSuffix()}`,
          codeVerifier: 'kit-verifier-kit-verifier-kit-verifier-kit',
          redirectUri: 'http://localhost:3000/cb',
        };
        await expectAdapterError(t, () => h.exchangeCode(input), [], 'bogus code');
      });
    });
  }

  await t.test('verifyWebhook() refuses unsigned and garbled deliveries without an exception', async (t) => {
    await withAdapter(opts, (h) => {
      const body = Buffer.from('{"zen":"kit"}');
      const cases: Array<[string, WebhookDelivery]> = [
        ['no headers', { headers: {}, rawBody: body }],
        [
          'a signature of garbage',
          { headers: { 'x-hub-signature-256': 'sha256=zz', 'x-github-delivery': 'd1' }, rawBody: body },
        ],
      ];
      for (const [name, d] of cases) {
        try {
          t.equal(h.verifyWebhook(d.headers, d.rawBody), false, name);
        } catch (err) {
          t.fail(`${name}: verifyWebhook threw ${describeError(err)}`);
        }
      }
    });
  });

  const webhooks = opts.webhooks;
  if (webhooks) {
    await t.test('a signed webhook is verified and read with its delivery id', async (t) => {
      await withAdapter(opts, async (h) => {
        const d = await resolveLazy(webhooks.signed);
        t.equal(h.verifyWebhook(d.headers, d.rawBody), true, 'verifyWebhook accepts it');
        const event = h.parseWebhook(d.headers, d.rawBody);
        t.same(checkCodeHostEvent(event), [], 'CodeHostEvent fits the contract');
        t.equal(h.parseWebhook(d.headers, d.rawBody).deliveryId, event.deliveryId, 'the delivery id is stable');
        if (webhooks.expectKind) t.equal(event.kind, webhooks.expectKind, 'kind');
      });
    });
    await t.test('forged webhooks are refused', async (t) => {
      await withAdapter(opts, async (h) => {
        const forged = await forgeriesOf(await resolveLazy(webhooks.signed), webhooks.forged);
        for (const [name, d] of forged) t.equal(h.verifyWebhook(d.headers, d.rawBody), false, name);
      });
    });
  }

  const repo = opts.repository;
  if (repo) await runRepositoryCases(t, opts, repo);
}

async function runRepositoryCases(
  t: ContractTest,
  opts: CodeHostKitOptions,
  repo: NonNullable<CodeHostKitOptions['repository']>,
) {
  const { ref } = repo;

  await t.test('a repository, its default branch, tree, files and CI state are read', async (t) => {
    await withAdapter(opts, async (h) => {
      const r = await h.getRepository(ref);
      t.same(checkRepository(r), [], 'Repository fits the contract');
      t.equal(r.fullName.toLowerCase(), ref.fullName.toLowerCase(), 'fullName');
      const branch = await h.getBranch(ref, r.defaultBranch);
      t.ok(branch && /^[0-9a-f]{40,64}$/.test(branch.sha), 'the default branch has a head commit');
      t.equal(await h.getBranch(ref, `kit-missing-${kitSuffix()}`), null, 'a missing branch is null');
      const tree = await h.listTree(ref);
      t.same(checkTreeEntries(tree), [], 'tree entries fit the contract');
      t.ok(
        tree.some((e) => e.path === repo.file && e.type === 'file'),
        `the tree lists ${repo.file}`,
      );
      const file = await h.readFile(ref, repo.file);
      t.ok(file && Buffer.isBuffer(file.content) && file.path === repo.file, `${repo.file} is read`);
      t.equal(await h.readFile(ref, `kit-missing-${kitSuffix()}.txt`), null, 'a missing file is null');
      if (branch) {
        t.same(checkCiStatus(await h.getCommitStatus(ref, branch.sha)), [], 'CiStatus fits the contract');
        const same = await h.compare(ref, branch.sha, branch.sha);
        t.same([same.diff, same.aheadBy, same.behindBy], ['', 0, 0], 'comparing a commit with itself gives no diff');
      }
    });
  });

  const pr = opts.pullRequest;
  if (!pr) return;
  await t.test('a pull request is opened, found, labelled, commented, updated and closed', async (t) => {
    await withAdapter(opts, async (h) => {
      const r = await h.getRepository(ref);
      const opened = await h.openPullRequest(ref, {
        head: pr.head,
        base: r.defaultBranch,
        title: 'Kit change',
        body: 'Opened by the contract kit.',
      });
      t.same(checkPullRequest(opened), [], 'PullRequest fits the contract');
      t.equal(opened.state, 'open', 'open');
      t.equal(opened.head.branch, pr.head, 'head branch');
      t.equal((await h.findPullRequestByBranch(ref, pr.head))?.number, opened.number, 'found by branch');
      await h.addLabels(ref, opened.number, ['kit-label']);
      t.ok((await h.getPullRequest(ref, opened.number))?.labels.includes('kit-label'), 'labelled');
      const c = await h.comment(ref, opened.number, 'Kit comment');
      t.ok(typeof c.id === 'string' && c.id !== '' && isHttpUrl(c.url), 'comment has an id and a URL');
      t.equal(
        (await h.updatePullRequest(ref, opened.number, { title: 'Kit change (2)' })).title,
        'Kit change (2)',
        'title updated',
      );
      const wrongSha = opened.head.sha.replace(/^./, (ch) => (ch === '0' ? '1' : '0'));
      await expectAdapterError(
        t,
        () => h.mergePullRequest(ref, opened.number, { method: 'squash', sha: wrongSha }),
        ['sha_mismatch'],
        'merge at a stale sha',
      );
      t.equal((await h.closePullRequest(ref, opened.number)).state, 'closed', 'closed');
      t.equal((await h.closePullRequest(ref, opened.number)).state, 'closed', 'closing again succeeds');
    });
  });
}
