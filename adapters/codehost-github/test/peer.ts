/**
 * A local GitHub peer for tests: a node:http server speaking the REST routes codehost-github
 * uses (and the two GraphQL mutations, the OAuth token endpoint), with its state in memory.
 * It checks the app's JWT against the app's public key, installation tokens, PKCE verifiers, and
 * keeps repository secrets sealed with its own libsodium key pair so a test can open them.
 */
import {
  createHash,
  createPublicKey,
  createVerify,
  generateKeyPairSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import sodium from 'libsodium-wrappers';

// ---- The peer's records, as its REST routes answer them

interface PeerInstallation {
  id: number;
  account: { login: string; type: string };
  repository_selection: 'all' | 'selected';
  permissions: Record<string, string>;
  suspended_at: string | null;
  /** The full names of the repositories it reaches (not part of the answer). */
  repos: string[];
}

interface PeerLabel {
  name: string;
  color?: string;
  description?: string;
}

interface PeerIssue {
  number: number;
  title: string;
  body: string;
  state: string;
  state_reason?: string | null;
  labels: Array<{ name: string }>;
}

interface PeerPull extends PeerIssue {
  node_id: string;
  draft: boolean;
  merged: boolean;
  merged_at: string | null;
  merge_commit_sha: string | null;
  head: { ref: string; sha: string };
  base: { ref: string };
}

interface PeerComment {
  id: number;
  number: number;
  body: string;
  html_url: string;
}

interface PeerTagObject {
  sha: string;
  tag: string;
  message: string;
  object: { type: 'commit'; sha: string };
}

interface PeerCommitStatus {
  context: string;
  state: 'success' | 'pending' | 'failure' | 'error';
  target_url?: string | null;
}

interface PeerCheckRun {
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  html_url?: string;
}

// ---- What codehost-github sends: the parameters of GitHub's REST routes (and GraphQL) that the peer reads

interface AccessTokenRequest {
  repositories?: string[];
  permissions?: Record<string, string>;
}

interface OAuthTokenRequest {
  code: string;
  client_id: string;
  client_secret: string;
  code_verifier?: string;
  redirect_uri: string;
}

interface GraphqlRequest {
  query: string;
  variables?: { id?: string };
}

interface PullCreate {
  head: string;
  base: string;
  title: string;
  body?: string;
  draft?: boolean;
}

interface PullUpdate {
  title?: string;
  body?: string;
  state?: 'open' | 'closed';
  base?: string;
}

interface IssueUpdate {
  state?: string;
  state_reason?: string | null;
}

interface ReleaseCreate {
  tag_name: string;
  name?: string;
  body?: string;
  draft?: boolean;
  prerelease?: boolean;
}

interface PeerRepo {
  id: number;
  owner: string;
  name: string;
  private: boolean;
  archived: boolean;
  defaultBranch: string;
  branches: Map<string, string>;
  /** Files per commit sha. */
  trees: Map<string, Map<string, string>>;
  /** Commit sha → parent sha. */
  parents: Map<string, string | null>;
  pulls: Map<number, PeerPull>;
  issues: Map<number, PeerIssue>;
  comments: PeerComment[];
  labels: Map<string, PeerLabel>;
  tags: Map<string, { type: 'commit' | 'tag'; sha: string }>;
  tagObjects: Map<string, PeerTagObject>;
  releases: Array<ReleaseCreate & { id: number; html_url: string }>;
  statuses: Map<string, PeerCommitStatus[]>;
  checkRuns: Map<string, PeerCheckRun[]>;
  secrets: Map<string, { encrypted_value: string; key_id: string }>;
  lastNumber: number;
}

const sha1 = (s: string) => createHash('sha1').update(s).digest('hex');

export class GithubPeer {
  readonly appId = '4242';
  readonly appSlug = 'patchwell-test';
  readonly privateKeyPem: string;
  private readonly publicKey: KeyObject;
  readonly installations = new Map<string, PeerInstallation>();
  readonly repos = new Map<string, PeerRepo>();
  /** Installation tokens issued: token → installation id, expiry and scope. */
  readonly tokens = new Map<
    string,
    { installationId: string; expiresAt: Date; repositories?: string[]; permissions?: Record<string, string> }
  >();
  readonly userTokens = new Map<string, { login: string; email: string | null }>();
  private readonly codes = new Map<
    string,
    { login: string; email: string | null; challenge: string; redirectUri: string }
  >();
  readonly oauthClient = { clientId: 'Iv1.peerclient', clientSecret: 'peer-client-secret-0123456789' };
  /** Every request, `METHOD path`. */
  readonly log: string[] = [];
  secretKeys!: { publicKey: Uint8Array; privateKey: Uint8Array };
  private server: Server | null = null;
  url = '';

  constructor() {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    this.privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    this.publicKey = createPublicKey(publicKey.export({ type: 'spki', format: 'pem' }));
  }

  async start(): Promise<this> {
    await sodium.ready;
    this.secretKeys = sodium.crypto_box_keypair();
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  // ---- state set-up

  addInstallation(id: string, account: string, repos: string[] = [], extra: Partial<PeerInstallation> = {}): void {
    this.installations.set(id, {
      id: Number(id),
      account: { login: account, type: 'Organization' },
      repository_selection: 'selected',
      permissions: { contents: 'write', issues: 'write', pull_requests: 'write', metadata: 'read', secrets: 'write' },
      suspended_at: null,
      repos,
      ...extra,
    });
  }

  addRepo(
    fullName: string,
    files: Record<string, string>,
    opts: { private?: boolean; defaultBranch?: string } = {},
  ): PeerRepo {
    const [owner, name] = fullName.split('/') as [string, string];
    const repo: PeerRepo = {
      id: 1000 + this.repos.size,
      owner,
      name,
      private: opts.private ?? false,
      archived: false,
      defaultBranch: opts.defaultBranch ?? 'main',
      branches: new Map(),
      trees: new Map(),
      parents: new Map(),
      pulls: new Map(),
      issues: new Map(),
      comments: [],
      labels: new Map(),
      tags: new Map(),
      tagObjects: new Map(),
      releases: [],
      statuses: new Map(),
      checkRuns: new Map(),
      secrets: new Map(),
      lastNumber: 0,
    };
    this.repos.set(fullName, repo);
    this.commit(fullName, repo.defaultBranch, files, null);
    return repo;
  }

  /** A commit on a branch with these files (on top of `base`'s files). */
  commit(fullName: string, branch: string, files: Record<string, string>, base: string | null = branch): string {
    const repo = this.repos.get(fullName)!;
    const parent = base ? (repo.branches.get(base) ?? base) : null;
    const tree = new Map(parent ? repo.trees.get(parent) : []);
    for (const [p, c] of Object.entries(files)) tree.set(p, c);
    const sha = sha1(`${parent}:${JSON.stringify([...tree])}:${randomBytes(4).toString('hex')}`);
    repo.trees.set(sha, tree);
    repo.parents.set(sha, parent);
    repo.branches.set(branch, sha);
    return sha;
  }

  /** A code the token endpoint exchanges, as if the user approved the app on the authorize page. */
  issueCode(login: string, email: string | null, challenge: string, redirectUri: string): string {
    const code = randomBytes(10).toString('hex');
    this.codes.set(code, { login, email, challenge, redirectUri });
    return code;
  }

  /** Opens a sealed secret (what GitHub Actions would see). */
  openSecret(fullName: string, name: string): string | null {
    const s = this.repos.get(fullName)?.secrets.get(name);
    if (!s) return null;
    const opened = sodium.crypto_box_seal_open(
      sodium.from_base64(s.encrypted_value, sodium.base64_variants.ORIGINAL),
      this.secretKeys.publicKey,
      this.secretKeys.privateKey,
    );
    return sodium.to_string(opened);
  }

  // ---- HTTP

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    this.log.push(`${method} ${url.pathname}`);
    const send = (status: number, body: unknown, type = 'application/json') => {
      res.writeHead(status, { 'content-type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    try {
      // Each route reads its own parameters (the interfaces above).
      const body: unknown = raw ? JSON.parse(raw) : {};
      const out = this.route(method, url, body, req);
      if (!out) return send(404, { message: 'Not Found' });
      send(out[0], out[1], out[2]);
    } catch (err) {
      const e = err as { status?: number; message: string };
      send(e.status ?? 500, { message: e.message });
    }
  }

  private fail(status: number, message: string): never {
    throw Object.assign(new Error(message), { status });
  }

  private checkJwt(req: IncomingMessage): void {
    const auth = req.headers.authorization ?? '';
    const m = /^Bearer ([^.]+)\.([^.]+)\.([^.]+)$/.exec(auth);
    if (!m) this.fail(401, 'A JSON web token could not be decoded');
    const ok = createVerify('RSA-SHA256')
      .update(`${m[1]}.${m[2]}`)
      .verify(this.publicKey, Buffer.from(m[3], 'base64url'));
    const claims = JSON.parse(Buffer.from(m[2], 'base64url').toString()) as { iss?: string; iat: number; exp: number };
    const now = Math.floor(Date.now() / 1000);
    if (!ok || claims.iss !== this.appId || claims.exp <= now || claims.exp - claims.iat > 600)
      this.fail(401, "'Issuer' claim or signature is invalid");
  }

  private checkToken(req: IncomingMessage, fullName?: string): string {
    const m = /^token (.+)$/.exec(req.headers.authorization ?? '');
    const t = m ? this.tokens.get(m[1]) : undefined;
    if (!t || t.expiresAt.getTime() < Date.now()) this.fail(401, 'Bad credentials');
    if (fullName) {
      const inst = this.installations.get(t.installationId);
      if (!inst?.repos.includes(fullName)) this.fail(404, 'Not Found');
      if (t.repositories && !t.repositories.includes(fullName.split('/')[1])) this.fail(404, 'Not Found');
    }
    return t.installationId;
  }

  private repoJson(r: PeerRepo) {
    const full = `${r.owner}/${r.name}`;
    return {
      id: r.id,
      node_id: `R_${r.id}`,
      name: r.name,
      full_name: full,
      private: r.private,
      visibility: r.private ? 'private' : 'public',
      archived: r.archived,
      default_branch: r.defaultBranch,
      html_url: `${this.url}/${full}`,
      clone_url: `${this.url}/${full}.git`,
    };
  }

  private pullJson(r: PeerRepo, p: PeerPull) {
    const live = p.state === 'open' ? (r.branches.get(p.head.ref) ?? p.head.sha) : p.head.sha;
    return { ...p, head: { ...p.head, sha: live }, html_url: `${this.url}/${r.owner}/${r.name}/pull/${p.number}` };
  }

  private route(method: string, url: URL, body: unknown, req: IncomingMessage): [number, unknown, string?] | null {
    const path = decodeURIComponent(url.pathname);
    let m: RegExpExecArray | null;

    if (method === 'GET' && (m = /^\/app\/installations\/(\d+)$/.exec(path))) {
      this.checkJwt(req);
      const inst = this.installations.get(m[1]);
      if (!inst) return null;
      const { repos: _repos, ...rest } = inst;
      return [200, rest];
    }
    if (method === 'POST' && (m = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(path))) {
      this.checkJwt(req);
      if (!this.installations.has(m[1])) return null;
      const b = body as AccessTokenRequest;
      const token = `ghs_${randomBytes(16).toString('hex')}`;
      const expiresAt = new Date(Date.now() + 3600_000);
      this.tokens.set(token, {
        installationId: m[1],
        expiresAt,
        repositories: b.repositories,
        permissions: b.permissions,
      });
      return [201, { token, expires_at: expiresAt.toISOString(), permissions: b.permissions ?? {} }];
    }
    if (method === 'GET' && path === '/installation/repositories') {
      const id = this.checkToken(req);
      const repos = this.installations.get(id)!.repos.map((n) => this.repoJson(this.repos.get(n)!));
      const per = Number(url.searchParams.get('per_page') ?? 30);
      const page = Number(url.searchParams.get('page') ?? 1);
      return [200, { total_count: repos.length, repositories: repos.slice((page - 1) * per, page * per) }];
    }
    if (method === 'POST' && path === '/login/oauth/access_token') {
      const b = body as OAuthTokenRequest;
      const c = this.codes.get(b.code);
      if (!c || b.client_id !== this.oauthClient.clientId || b.client_secret !== this.oauthClient.clientSecret)
        return [200, { error: 'bad_verification_code' }];
      const challenge = createHash('sha256')
        .update(String(b.code_verifier ?? ''))
        .digest('base64url');
      if (challenge !== c.challenge || b.redirect_uri !== c.redirectUri)
        return [200, { error: 'bad_verification_code' }];
      this.codes.delete(b.code);
      const token = `ghu_${randomBytes(16).toString('hex')}`;
      this.userTokens.set(token, { login: c.login, email: c.email });
      return [200, { access_token: token, token_type: 'bearer', scope: '' }];
    }
    if (method === 'GET' && (path === '/user' || path === '/user/emails')) {
      const u = this.userTokens.get((req.headers.authorization ?? '').replace(/^Bearer /, ''));
      if (!u) this.fail(401, 'Bad credentials');
      if (path === '/user') return [200, { login: u.login, id: 1 }];
      return [200, u.email ? [{ email: u.email, primary: true, verified: true }] : []];
    }
    if (method === 'POST' && path === '/graphql') {
      this.checkToken(req);
      const b = body as GraphqlRequest;
      const [, mutation] = /(convertPullRequestToDraft|markPullRequestReadyForReview)/.exec(String(b.query)) ?? [];
      for (const r of this.repos.values()) {
        for (const p of r.pulls.values()) {
          if (p.node_id !== b.variables?.id) continue;
          p.draft = mutation === 'convertPullRequestToDraft';
          return [200, { data: { [mutation]: { pullRequest: { id: p.node_id } } } }];
        }
      }
      return [200, { errors: [{ message: 'Could not resolve to a node' }] }];
    }

    if (!(m = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(path))) return null;
    const fullName = `${m[1]}/${m[2]}`;
    const rest = m[3] ?? '';
    const repo = this.repos.get(fullName);
    this.checkToken(req, fullName);
    if (!repo) return null;
    return this.repoRoute(method, repo, rest, url, body, String(req.headers.accept ?? ''));
  }

  private resolveRef(repo: PeerRepo, ref: string): string | null {
    if (repo.branches.has(ref)) return repo.branches.get(ref)!;
    return repo.trees.has(ref) ? ref : null;
  }

  private repoRoute(
    method: string,
    repo: PeerRepo,
    rest: string,
    url: URL,
    body: unknown,
    accept: string,
  ): [number, unknown, string?] | null {
    let m: RegExpExecArray | null;
    const q = (k: string) => url.searchParams.get(k);
    if (method === 'GET' && rest === '') return [200, this.repoJson(repo)];
    if (method === 'GET' && (m = /^\/contents\/(.+)$/.exec(rest))) {
      const sha = this.resolveRef(repo, q('ref') ?? repo.defaultBranch);
      const content = sha ? repo.trees.get(sha)!.get(m[1]) : undefined;
      if (content === undefined) return null;
      return [
        200,
        {
          type: 'file',
          path: m[1],
          sha: sha1(content),
          size: content.length,
          encoding: 'base64',
          content: Buffer.from(content).toString('base64'),
        },
      ];
    }
    if (method === 'GET' && (m = /^\/git\/trees\/(.+)$/.exec(rest))) {
      const sha = this.resolveRef(repo, m[1]);
      if (!sha) return null;
      const files = [...repo.trees.get(sha)!];
      const dirs = new Set(
        files.flatMap(([p]) =>
          p
            .split('/')
            .slice(0, -1)
            .map((_, i, a) => a.slice(0, i + 1).join('/')),
        ),
      );
      return [
        200,
        {
          sha,
          truncated: false,
          tree: [
            ...[...dirs].map((d) => ({ path: d, mode: '040000', type: 'tree', sha: sha1(d) })),
            ...files.map(([p, c]) => ({ path: p, mode: '100644', type: 'blob', sha: sha1(c), size: c.length })),
          ],
        },
      ];
    }
    if (method === 'GET' && (m = /^\/branches\/(.+)$/.exec(rest))) {
      const sha = repo.branches.get(m[1]);
      return sha ? [200, { name: m[1], commit: { sha }, protected: m[1] === repo.defaultBranch }] : null;
    }
    if (method === 'GET' && (m = /^\/compare\/(.+)\.\.\.(.+)$/.exec(rest))) {
      const base = this.resolveRef(repo, m[1]);
      const head = this.resolveRef(repo, m[2]);
      if (!base || !head) return null;
      let ahead = 0;
      for (let c: string | null = head; c && c !== base; c = repo.parents.get(c) ?? null) ahead++;
      const changed = [...repo.trees.get(head)!].filter(([p, c]) => repo.trees.get(base)!.get(p) !== c);
      if (accept.includes('diff'))
        return [200, changed.map(([p, c]) => `diff --git a/${p} b/${p}\n+++ b/${p}\n+${c}`).join('\n'), 'text/plain'];
      return [
        200,
        { ahead_by: base === head ? 0 : ahead, behind_by: 0, files: changed.map(([p]) => ({ filename: p })) },
      ];
    }
    if (method === 'POST' && rest === '/pulls') {
      const b = body as PullCreate;
      const headSha = repo.branches.get(b.head);
      if (!headSha || !repo.branches.has(b.base)) this.fail(422, 'Validation Failed');
      for (const p of repo.pulls.values())
        if (p.state === 'open' && p.head.ref === b.head && p.base.ref === b.base)
          this.fail(422, `A pull request already exists for ${repo.owner}:${b.head}.`);
      const number = ++repo.lastNumber;
      const pr: PeerPull = {
        number,
        node_id: `PR_${repo.id}_${number}`,
        title: b.title,
        body: b.body ?? '',
        state: 'open',
        draft: Boolean(b.draft),
        merged: false,
        merged_at: null,
        merge_commit_sha: null,
        head: { ref: b.head, sha: headSha },
        base: { ref: b.base },
        labels: [],
      };
      repo.pulls.set(number, pr);
      return [201, this.pullJson(repo, pr)];
    }
    if (method === 'GET' && rest === '/pulls') {
      const head = (q('head') ?? '').split(':')[1];
      const list = [...repo.pulls.values()]
        .filter((p) => !head || p.head.ref === head)
        .sort((a, b) => b.number - a.number);
      return [200, list.slice(0, Number(q('per_page') ?? 30)).map((p) => this.pullJson(repo, p))];
    }
    if ((m = /^\/pulls\/(\d+)(\/merge)?$/.exec(rest))) {
      const pr = repo.pulls.get(Number(m[1]));
      if (!pr) return null;
      if (method === 'GET' && !m[2]) return [200, this.pullJson(repo, pr)];
      if (method === 'PATCH' && !m[2]) {
        const b = body as PullUpdate;
        if (b.title !== undefined) pr.title = b.title;
        if (b.body !== undefined) pr.body = b.body;
        if (b.state !== undefined) pr.state = b.state;
        if (b.base !== undefined) pr.base = { ref: b.base };
        if (b.state === 'closed') pr.head.sha = repo.branches.get(pr.head.ref) ?? pr.head.sha;
        return [200, this.pullJson(repo, pr)];
      }
      if (method === 'PUT' && m[2]) {
        const live = repo.branches.get(pr.head.ref);
        if (pr.state !== 'open') this.fail(405, 'Pull Request is not mergeable');
        if ((body as { sha?: string; merge_method?: string }).sha !== live)
          this.fail(409, 'Head branch was modified. Review and try the merge again.');
        const merged = this.commit(
          `${repo.owner}/${repo.name}`,
          pr.base.ref,
          Object.fromEntries(repo.trees.get(live!)!),
        );
        Object.assign(pr, {
          state: 'closed',
          merged: true,
          merged_at: new Date().toISOString(),
          merge_commit_sha: merged,
          head: { ...pr.head, sha: live },
        });
        return [200, { sha: merged, merged: true, message: 'Pull Request successfully merged' }];
      }
    }
    if ((m = /^\/issues\/(\d+)(\/labels|\/comments)?$/.exec(rest))) {
      const n = Number(m[1]);
      const item = repo.pulls.get(n) ?? repo.issues.get(n);
      if (!item) return null;
      if (method === 'POST' && m[2] === '/labels') {
        for (const name of (body as { labels: string[] }).labels) {
          if (!repo.labels.has(name)) repo.labels.set(name, { name, color: 'ededed', description: '' });
          if (!item.labels.some((l) => l.name === name)) item.labels.push({ name });
        }
        return [200, item.labels];
      }
      if (method === 'POST' && m[2] === '/comments') {
        const c: PeerComment = {
          id: 9000 + repo.comments.length,
          number: n,
          body: (body as { body: string }).body,
          html_url: `${this.url}/${repo.owner}/${repo.name}/issues/${n}#issuecomment-${9000 + repo.comments.length}`,
        };
        repo.comments.push(c);
        return [201, c];
      }
      if (method === 'PATCH' && !m[2]) {
        const b = body as IssueUpdate;
        item.state = b.state ?? item.state;
        item.state_reason = b.state_reason ?? null;
        return [200, item];
      }
    }
    if ((m = /^\/labels(?:\/(.+))?$/.exec(rest))) {
      const b = body as PeerLabel;
      if (method === 'PATCH' && m[1]) {
        const l = repo.labels.get(m[1]);
        if (!l) return null;
        Object.assign(l, { color: b.color, description: b.description });
        return [200, l];
      }
      if (method === 'POST' && !m[1]) {
        if (repo.labels.has(b.name)) this.fail(422, 'Validation Failed');
        repo.labels.set(b.name, { name: b.name, color: b.color, description: b.description });
        return [201, repo.labels.get(b.name)];
      }
    }
    if (method === 'GET' && (m = /^\/git\/ref\/tags\/(.+)$/.exec(rest))) {
      const t = repo.tags.get(m[1]);
      return t ? [200, { ref: `refs/tags/${m[1]}`, object: t }] : null;
    }
    if (method === 'GET' && (m = /^\/git\/tags\/([0-9a-f]+)$/.exec(rest))) {
      const t = repo.tagObjects.get(m[1]);
      return t ? [200, t] : null;
    }
    if (method === 'POST' && rest === '/git/tags') {
      const b = body as { tag: string; message: string; object: string; type?: string };
      const sha = sha1(`tag:${b.tag}:${b.object}`);
      repo.tagObjects.set(sha, {
        sha,
        tag: b.tag,
        message: b.message,
        object: { type: 'commit', sha: b.object },
      });
      return [201, { sha }];
    }
    if (method === 'POST' && rest === '/git/refs') {
      const b = body as { ref: string; sha: string };
      const name = String(b.ref).replace(/^refs\/tags\//, '');
      if (repo.tags.has(name)) this.fail(422, 'Reference already exists');
      repo.tags.set(name, { type: repo.tagObjects.has(b.sha) ? 'tag' : 'commit', sha: b.sha });
      return [201, { ref: b.ref, object: repo.tags.get(name) }];
    }
    if (method === 'POST' && rest === '/releases') {
      const b = body as ReleaseCreate;
      const r = {
        id: 7000 + repo.releases.length,
        html_url: `${this.url}/${repo.owner}/${repo.name}/releases/tag/${b.tag_name}`,
        ...b,
      };
      repo.releases.push(r);
      return [201, r];
    }
    if (method === 'GET' && (m = /^\/commits\/([0-9a-f]+)\/(status|check-runs)$/.exec(rest))) {
      if (m[2] === 'status') {
        const statuses = repo.statuses.get(m[1]) ?? [];
        return [200, { state: statuses.length ? 'success' : 'pending', statuses, total_count: statuses.length }];
      }
      const runs = repo.checkRuns.get(m[1]) ?? [];
      return [200, { total_count: runs.length, check_runs: runs }];
    }
    if (method === 'GET' && rest === '/actions/secrets/public-key') {
      return [
        200,
        { key_id: 'peer-key-1', key: sodium.to_base64(this.secretKeys.publicKey, sodium.base64_variants.ORIGINAL) },
      ];
    }
    if (method === 'PUT' && (m = /^\/actions\/secrets\/([A-Za-z0-9_]+)$/.exec(rest))) {
      const b = body as { encrypted_value: string; key_id: string };
      if (b.key_id !== 'peer-key-1') this.fail(422, 'Bad key id');
      repo.secrets.set(m[1], { encrypted_value: b.encrypted_value, key_id: b.key_id });
      return [201, {}];
    }
    return null;
  }
}
