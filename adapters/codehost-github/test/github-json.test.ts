import t from 'tap';
import { toPullRequest, type GhPullRequestFields } from '../github-json.js';

/** A pull request as GitHub lists it, with `edit` applied. */
const pull = (edit: Partial<GhPullRequestFields>): GhPullRequestFields => ({
  number: 7,
  html_url: 'https://github.com/acme/web/pull/7',
  title: 'Fix the cart total',
  body: null,
  state: 'closed',
  draft: false,
  merged_at: null,
  merge_commit_sha: null,
  head: { ref: 'patchwell/fix-7', sha: 'a'.repeat(40) },
  base: { ref: 'main' },
  labels: [{ name: 'patchwell' }],
  ...edit,
});

t.test('a merged pull request answers its merge commit', (t) => {
  const pr = toPullRequest(pull({ merged_at: '2026-11-29T09:00:00Z', merge_commit_sha: 'b'.repeat(40) }));
  t.equal(pr.state, 'merged');
  t.equal(pr.mergeSha, 'b'.repeat(40));
  t.equal(pr.body, '', 'a null body reads as empty');
  t.end();
});

t.test('a merged pull request without a merge commit answers null, not the text "null"', (t) => {
  const pr = toPullRequest(pull({ merged: true, merge_commit_sha: null }));
  t.equal(pr.state, 'merged');
  t.equal(pr.mergeSha, null);
  t.end();
});

t.test('an open pull request has no merge commit, whatever GitHub computed for it', (t) => {
  // GitHub fills merge_commit_sha with its test merge while a pull request is open.
  const pr = toPullRequest(pull({ state: 'open', merge_commit_sha: 'c'.repeat(40) }));
  t.equal(pr.state, 'open');
  t.equal(pr.mergeSha, null);
  t.end();
});
