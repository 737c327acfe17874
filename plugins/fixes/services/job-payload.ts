import type { AgentJob, CodeHit, CodeHost, JobTools, RepoRef } from '../../../core/contracts/index.js';
import { httpError } from '../../../core/http/errors.js';
import type { FixJob } from '../models/index.js';
import type { FixesDeps } from './deps.js';
import { mask } from './mask.js';

interface RepoRow {
  id: string;
  full_name: string;
  default_branch: string;
  html_url: string | null;
  is_public: boolean;
}

/** Body of the conversation the agent reads: the customer's messages, masked, capped. */
const BODY_LIMIT = 20_000;

/** Builds what an executor receives for a job: the AgentJob, repository tools and the secrets to mask. */
export class JobPayloads {
  constructor(
    private readonly d: Pick<
      FixesDeps,
      'db' | 'tickets' | 'workspaces' | 'codeIndex' | 'options' | 'codeHost' | 'repositories' | 'patternMatcher'
    >,
  ) {}

  /** The workspace's connected repository (codehost plugin's table), if any. */
  async repositoryOf(orgId: string, workspaceId: string): Promise<RepoRow | null> {
    const row = (await this.d
      .db('repositories')
      .where({ org_id: orgId, workspace_id: workspaceId })
      .orderBy('created_at')
      .select('id', 'full_name', 'default_branch', 'html_url', 'is_public')
      .first()) as RepoRow | undefined;
    return row ?? null;
  }

  /**
   * The code host and repository a remote job (runner, MCP) works on: the one its payload names, else
   * the workspace's; 422 no_repository without a code host or a repository.
   */
  async repositoryRefOf(
    job: Pick<FixJob, 'org_id' | 'workspace_id' | 'payload'>,
  ): Promise<{ host: CodeHost; ref: RepoRef }> {
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos) throw httpError(422, 'no_repository', 'No code host is configured');
    const repositoryId = job.payload?.repository_id ?? (await this.repositoryOf(job.org_id, job.workspace_id))?.id;
    if (!repositoryId) throw httpError(422, 'no_repository', 'The workspace has no repository');
    return { host, ref: await repos.ref(job.org_id, repositoryId) };
  }

  async build(job: FixJob): Promise<{ agentJob: AgentJob; tools: JobTools | undefined; secrets: string[] }> {
    const ticket = await this.d.tickets.mustGet(this.d.db, job.org_id, job.ticket_id);
    const ws = await this.d.workspaces.get(job.org_id, job.workspace_id);
    const messages: Array<{ body_text: string | null }> = await this.d
      .db('ticket_messages')
      .where({ org_id: job.org_id, ticket_id: ticket.id, direction: 'in', is_internal_note: false })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .select('body_text');
    const body = mask(
      messages
        .map((m) => m.body_text ?? '')
        .filter(Boolean)
        .join('\n\n---\n\n'),
    ).slice(0, BODY_LIMIT);
    const repo = await this.repositoryOf(job.org_id, job.workspace_id);
    const cfg = ws.agent_config ?? {};
    const agentJob: AgentJob = {
      id: job.id,
      kind: job.kind,
      org_id: job.org_id,
      workspace_id: job.workspace_id,
      ticket: {
        id: ticket.id,
        subject: mask(ticket.subject),
        body,
        origin: ticket.origin,
        category: ticket.category as AgentJob['ticket']['category'],
        language: ticket.language,
      },
      repository: repo
        ? { id: repo.id, full_name: repo.full_name, default_branch: repo.default_branch, is_public: repo.is_public }
        : null,
      instructions:
        (job.payload.instructions ??
          (job.kind === 'diagnose' ? 'Diagnose the report and draft a reply.' : 'Fix the defect and run the tests.')) +
        (await this.patternHints(job)),
      limits: job.payload.limits ?? {
        max_minutes: cfg.max_minutes ?? this.d.options.defaultMaxMinutes,
        max_cost_usd: cfg.max_cost_usd ?? this.d.options.defaultMaxCostUsd,
      },
      ...(job.payload.branch ? { branch: job.payload.branch } : {}),
      test_command: ws.test_command,
      agent: {
        agent_id: ws.agent_id,
        ...(cfg.model ? { model: cfg.model } : {}),
        ...(cfg.effort ? { effort: cfg.effort } : {}),
      },
    };
    const index = this.d.codeIndex;
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    // Tokens handed out for this job are masked in its events by value.
    const secrets: string[] = [];
    const tools: JobTools | undefined = repo
      ? {
          ...(host && repos
            ? {
                gitAccess: async (input: { write: boolean }) => {
                  const access = await host.createGitAccess(await repos.ref(job.org_id, repo.id), {
                    write: input.write && job.kind === 'fix',
                  });
                  secrets.push(access.token);
                  return access;
                },
              }
            : {}),
          searchCode: async (query: string, limit = 5): Promise<CodeHit[]> => {
            if (!index) return [];
            const hits = await index.search(job.org_id, repo.id, query, { limit });
            return hits.map((h) => ({
              path: h.path,
              line_start: h.line_start,
              line_end: h.line_end,
              ...(h.symbol ? { symbol: h.symbol } : {}),
              ...(repo.html_url
                ? {
                    url: `${repo.html_url.replace(/\/+$/, '')}/blob/${repo.default_branch}/${h.path}#L${h.line_start}-L${h.line_end}`,
                  }
                : {}),
              snippet: h.snippet,
            }));
          },
        }
      : undefined;
    return { agentJob, tools, secrets };
  }

  /** Known fixes of similar problems (proactive plugin's `patternMatcher`, when present), as a note for the agent; '' when none fits. */
  private async patternHints(job: FixJob): Promise<string> {
    if (!this.d.patternMatcher) return '';
    try {
      const matches = (await this.d.patternMatcher.matchTicket(job.org_id, job.ticket_id, 3)).filter(
        (m) => m.score >= 0.5,
      );
      if (!matches.length) return '';
      const lines = matches.map((m) => {
        const fix: { summary?: string } = m.pattern.fix ?? {};
        return `- ${m.pattern.title ?? ''} (score ${m.score.toFixed(2)}): ${fix.summary ?? ''}`.slice(0, 600);
      });
      return `\n\nKnown fixes of similar problems (learned patterns; check they apply before reusing them):\n${lines.join('\n')}`;
    } catch {
      return ''; // hints never stop a job
    }
  }
}
