/**
 * The local host's own pages (HTML, no operation id, outside the OpenAPI document): the install
 * page that sends the browser back with the installation id, the sign-in page of local accounts,
 * and a repository, issue or pull request view with the diff. The code-host plugin mounts them.
 */
import Joi from 'joi';
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import type { LocalCodeHost } from './local-code-host.js';
import { escapeHtml as esc } from '../../core/http/html.js';

export interface LocalPageAccess {
  /** Whether the request may see a repository (e.g. a signed-in member of the organization that installed it). */
  canView(request: Request, fullName: string): Promise<boolean>;
  /** Whether it may read the repository's files (default: canView); a public repository's are everyone's. */
  canReadFiles?(request: Request, fullName: string): Promise<boolean>;
}

const STYLE = `body{font:14px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:1.4rem}a{color:#0969da}.muted{color:#59636e}.state{display:inline-block;padding:0 .5rem;border-radius:1rem;color:#fff}
.open{background:#1a7f37}.closed{background:#cf222e}.merged{background:#8250df}pre.diff{background:#f6f8fa;padding:1rem;overflow:auto;font:12px/1.4 ui-monospace,monospace}
.add{color:#1a7f37}.del{color:#cf222e}.hunk{color:#0969da}.comment{border:1px solid #d0d7de;border-radius:6px;padding:.5rem 1rem;margin:.5rem 0}
form{display:grid;gap:.5rem;max-width:320px}input,button{font:inherit;padding:.4rem}`;

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex"><title>${esc(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`;
}

// No script at all; inline style only; the sign-in form posts to this origin.
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

function html(h: ResponseToolkit, title: string, body: string, code = 200) {
  return h
    .response(page(title, body))
    .type('text/html; charset=utf-8')
    .code(code)
    .header('cache-control', 'no-store')
    .header('Content-Security-Policy', CSP);
}

function diffHtml(diff: string): string {
  return diff
    .split('\n')
    .map((l) => {
      const cls =
        l.startsWith('+++') || l.startsWith('---')
          ? ''
          : l.startsWith('+')
            ? 'add'
            : l.startsWith('-')
              ? 'del'
              : l.startsWith('@@')
                ? 'hunk'
                : '';
      return cls ? `<span class="${cls}">${esc(l)}</span>` : esc(l);
    })
    .join('\n');
}

const repoParams = Joi.object({ owner: Joi.string().max(100).required(), repo: Joi.string().max(100).required() });

export function localPageRoutes(host: LocalCodeHost, access: LocalPageAccess): ServerRoute[] {
  const sameOrigin = (uri: string) => {
    try {
      return new URL(uri).origin === new URL(host.publicUrl).origin;
    } catch {
      return false;
    }
  };

  const authorizeForm = (q: Record<string, string>, error?: string) =>
    `<h1>Sign in to the local code host</h1>${error ? `<p class="del">${esc(error)}</p>` : ''}
<form method="post" action="/codehost/local/login/oauth/authorize">
${['client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method'].map((k) => `<input type="hidden" name="${k}" value="${esc(q[k])}">`).join('')}
<label>Login <input name="login" autocomplete="username" required></label>
<label>Password <input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button></form>
${host.signInAvailable ? '' : '<p class="muted">No local accounts are configured (adapters.options.codehost-local.users).</p>'}`;

  const authorizeQuery = Joi.object({
    client_id: Joi.string().max(100).required(),
    redirect_uri: Joi.string()
      .uri({ scheme: ['http', 'https'] })
      .max(2000)
      .required(),
    state: Joi.string().max(500).required(),
    code_challenge: Joi.string()
      .pattern(/^[A-Za-z0-9_-]{43}$/)
      .required(),
    code_challenge_method: Joi.string().valid('S256').required(),
  });

  return [
    {
      method: 'GET',
      path: '/codehost/local/install',
      options: {
        auth: false,
        validate: { query: Joi.object({ state: Joi.string().max(500).required() }) },
        handler: async (request, h) => {
          const to = await host.setupRedirect((request.query as { state: string }).state);
          if (!to)
            return html(
              h,
              'Install',
              '<h1>This install link is unknown or expired</h1><p>Start again from the code host settings.</p>',
              404,
            );
          return h.redirect(to).code(302);
        },
      },
    },
    {
      method: 'GET',
      path: '/codehost/local/login/oauth/authorize',
      options: {
        auth: false,
        validate: { query: authorizeQuery },
        handler: (request, h) => {
          const q = request.query as Record<string, string>;
          if (!sameOrigin(q.redirect_uri))
            return html(h, 'Sign in', '<h1>The redirect address is not allowed</h1>', 400);
          return html(h, 'Sign in', authorizeForm(q));
        },
      },
    },
    {
      method: 'POST',
      path: '/codehost/local/login/oauth/authorize',
      options: {
        auth: false,
        payload: { allow: ['application/x-www-form-urlencoded'], maxBytes: 16 * 1024 },
        validate: {
          payload: authorizeQuery.keys({
            login: Joi.string().max(100).required(),
            password: Joi.string().max(200).required(),
          }),
        },
        handler: async (request, h) => {
          const p = request.payload as Record<string, string>;
          if (!sameOrigin(p.redirect_uri))
            return html(h, 'Sign in', '<h1>The redirect address is not allowed</h1>', 400);
          const code = await host.authorizeWithPassword({
            login: p.login,
            password: p.password,
            codeChallenge: p.code_challenge,
            redirectUri: p.redirect_uri,
          });
          if (!code) return html(h, 'Sign in', authorizeForm(p, 'Wrong login or password.'), 401);
          const to = new URL(p.redirect_uri);
          to.searchParams.set('code', code);
          to.searchParams.set('state', p.state);
          return h.redirect(to.toString()).code(302);
        },
      },
    },
    {
      method: 'GET',
      path: '/codehost/local/{owner}/{repo}',
      options: {
        auth: { strategy: 'session', mode: 'try' },
        validate: { params: repoParams },
        handler: async (request, h) => {
          const { owner, repo } = request.params as { owner: string; repo: string };
          const fullName = `${owner}/${repo}`;
          if (!(await access.canView(request, fullName))) return html(h, 'Not found', '<h1>Not found</h1>', 404);
          const items = await host.listItems(fullName);
          const rows = items.map(
            (i) =>
              `<li><a href="${esc(i.url)}">#${i.number}</a> ${esc(i.title)} <span class="state ${esc(i.state)}">${esc(i.state)}</span> <span class="muted">${i.kind === 'pull_request' ? 'pull request' : 'issue'}</span></li>`,
          );
          return html(
            h,
            fullName,
            `<h1>${esc(fullName)}</h1><ul>${rows.join('') || '<li class="muted">No issues or pull requests.</li>'}</ul>`,
          );
        },
      },
    },
    {
      // A file at a branch or commit, as a host's blob page (the links drafts quote: `…/blob/main/README.md#L3-L9`).
      method: 'GET',
      path: '/codehost/local/{owner}/{repo}/blob/{ref}/{path*}',
      options: {
        auth: { strategy: 'session', mode: 'try' },
        validate: {
          params: repoParams.keys({
            ref: Joi.string()
              .max(200)
              .pattern(/^[A-Za-z0-9._/-]+$/)
              .required(),
            path: Joi.string().max(1000).required(),
          }),
        },
        handler: async (request, h) => {
          const { owner, repo, ref, path } = request.params as {
            owner: string;
            repo: string;
            ref: string;
            path: string;
          };
          const fullName = `${owner}/${repo}`;
          const readable = access.canReadFiles
            ? await access.canReadFiles(request, fullName)
            : await access.canView(request, fullName);
          if (!readable) return html(h, 'Not found', '<h1>Not found</h1>', 404);
          const file = await host.readFile({ installationId: null, fullName }, path, ref).catch(() => null);
          if (!file) return html(h, 'Not found', '<h1>Not found</h1>', 404);
          const lines = file.content.toString('utf8').split('\n');
          const rows = lines
            .map(
              (l, i) =>
                `<span id="L${i + 1}"><span class="muted">${String(i + 1).padStart(4)}</span>  ${esc(l)}</span>`,
            )
            .join('\n');
          return html(
            h,
            `${path} · ${fullName}`,
            `<p><a href="/codehost/local/${esc(fullName)}">${esc(fullName)}</a> · <code>${esc(ref)}</code></p><h1>${esc(path)}</h1><pre class="diff">${rows}</pre>`,
          );
        },
      },
    },
    {
      method: 'GET',
      path: '/codehost/local/{owner}/{repo}/{kind}/{number}',
      options: {
        auth: { strategy: 'session', mode: 'try' },
        validate: {
          params: repoParams.keys({
            kind: Joi.string().valid('pull', 'issues').required(),
            number: Joi.number().integer().min(1).max(1e9).required(),
          }),
        },
        handler: async (request, h) => {
          const { owner, repo, number } = request.params as { owner: string; repo: string; number: number };
          const fullName = `${owner}/${repo}`;
          if (!(await access.canView(request, fullName))) return html(h, 'Not found', '<h1>Not found</h1>', 404);
          const detail = await host.itemDetail(fullName, number).catch(() => null);
          if (!detail) return html(h, 'Not found', '<h1>Not found</h1>', 404);
          const { item, pull, diff, commits } = detail;
          const comments = await host.listComments(fullName, number);
          const state = pull?.state ?? item.state;
          const parts = [
            `<p><a href="/codehost/local/${esc(fullName)}">${esc(fullName)}</a></p>`,
            `<h1>${esc(item.title)} <span class="muted">#${number}</span></h1>`,
            `<p><span class="state ${esc(state)}">${esc(state)}</span> ${pull ? `${esc(pull.head.branch)} → ${esc(pull.base.branch)} at <code>${esc(pull.head.sha.slice(0, 12))}</code>${pull.draft ? ' (draft)' : ''}${pull.mergeSha ? ` merged as <code>${esc(pull.mergeSha.slice(0, 12))}</code>` : ''}` : `opened by ${esc(item.author)}`}</p>`,
            `<div class="comment">${esc(item.body).replace(/\n/g, '<br>') || '<span class="muted">No description.</span>'}</div>`,
            ...comments.map(
              (c) =>
                `<div class="comment"><strong>${esc(c.author)}</strong> <span class="muted">${esc(c.createdAt.toISOString())}</span><br>${esc(c.body).replace(/\n/g, '<br>')}</div>`,
            ),
          ];
          if (pull) {
            parts.push(
              `<h2>Commits</h2><ul>${commits.map((c) => `<li><code>${esc(c.sha.slice(0, 12))}</code> ${esc(c.subject)} <span class="muted">${esc(c.author)}</span></li>`).join('')}</ul>`,
            );
            parts.push(
              `<h2>Diff</h2>${diff ? `<pre class="diff">${diffHtml(diff.diff)}</pre>${diff.truncated ? '<p class="muted">The diff was cut short.</p>' : ''}` : '<p class="muted">The diff is not available.</p>'}`,
            );
          }
          return html(h, `${item.title} #${number}`, parts.join('\n'));
        },
      },
    },
  ];
}
