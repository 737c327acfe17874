import { FixAttempt } from '../models/index.js';
import type { FixesDeps } from './deps.js';

const escapeMd = (s: string) => s.replace(/[<>]/g, '');

/**
 * Pull requests of fix attempts, through the CodeHost. Opening is idempotent: the pull request of
 * the attempt's branch is found before one is opened.
 */
export class PullRequests {
  constructor(
    private readonly d: Pick<FixesDeps, 'db' | 'outbox' | 'codeHost' | 'repositories' | 'tickets' | 'config'>,
  ) {}

  /**
   * `runnerVerified`: a runner asks for the pull request of its verified branch before it posts
   * the job's result (the attempt is still running); its own verification goes into the body.
   */
  async openFor(
    orgId: string,
    attemptId: string,
    draft: boolean,
    runnerVerified?: { tests_ran: boolean; tests_passed: boolean },
  ): Promise<FixAttempt | undefined> {
    const found = await FixAttempt.query(this.d.db).forOrg(orgId).findById(attemptId);
    const openable = found?.status === 'verified' || (!!runnerVerified && found?.status === 'running');
    if (!found || !openable || found.pr_number || !found.repository_id) return found;
    const attempt = runnerVerified
      ? Object.assign(found, { tests_ran: runnerVerified.tests_ran, tests_passed: runnerVerified.tests_passed })
      : found;
    const repositoryId = found.repository_id;
    const host = this.d.codeHost;
    const repos = this.d.repositories;
    if (!host || !repos) return attempt;
    const ticket = await this.d.tickets.mustGet(this.d.db, orgId, attempt.ticket_id);
    const row = (await this.d
      .db('repositories')
      .where({ org_id: orgId, id: repositoryId })
      .select('default_branch')
      .first()) as { default_branch: string } | undefined;
    if (!row) return attempt;
    const ref = await repos.ref(orgId, repositoryId);
    const link = `${this.d.config.server.publicBaseUrl.replace(/\/+$/, '')}/tickets/${ticket.id}`;
    const pr =
      (await host.findPullRequestByBranch(ref, attempt.branch)) ??
      (await host.openPullRequest(ref, {
        head: attempt.branch,
        base: row.default_branch,
        title: `Fix: ${escapeMd(ticket.subject).slice(0, 120)}`,
        body: [
          `Fix attempt ${attempt.number} for ticket [${ticket.id}](${link}).`,
          '',
          `Verification: tests ran ${attempt.tests_ran ? 'yes' : 'no'}, passed ${attempt.tests_passed ? 'yes' : 'no'}.`,
          attempt.reviewer_notes ? `\nReviewer notes addressed:\n\n${escapeMd(attempt.reviewer_notes)}` : '',
        ].join('\n'),
        draft,
      }));
    return this.d.db.transaction(async (trx) => {
      const updated = await FixAttempt.query(trx)
        .forOrg(orgId)
        .patchAndFetchById(attempt.id, { pr_number: pr.number, pr_url: pr.url, pr_state: pr.state });
      await this.d.outbox.add(
        trx,
        'fixes.pull_request_opened',
        { ticket_id: ticket.id, fix_attempt_id: attempt.id, number: pr.number, url: pr.url, head_sha: pr.head.sha },
        { orgId },
      );
      return updated;
    });
  }
}
