import t from 'tap';
import { signPayload, signedDelivery, webhookExample } from '../../../test/helpers/codehost.js';
import type { App } from '../../../core/kernel/app.js';
import type { Answer } from '../../../test/helpers/api-types.js';
import type { HostInstallation, HostRepository, WebhookPayload } from '../services/payload.js';
import { SECRET, call, codehostWorld, createWorkspace, installAndLink, waitFor } from './helpers.js';

/** What `ours` rewrites in a delivery: the installation and repository, named as the local host names them. */
interface Addressed {
  installation?: HostInstallation;
  repository?: HostRepository & { name?: string };
}

/** A row of codehost_webhook_deliveries. */
interface DeliveryRow {
  outcome: string | null;
  processed_at: Date | null;
}

async function deliver(app: App, d: { headers: Record<string, string>; rawBody: Buffer }) {
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/webhooks/codehost',
    headers: d.headers,
    payload: d.rawBody,
  });
  return { status: res.statusCode, body: JSON.parse(res.payload) as Answer<'POST', '/v1/webhooks/codehost'> };
}

async function processed(app: App, deliveryId: string): Promise<DeliveryRow> {
  return waitFor(async () => {
    const row = await app
      .db('codehost_webhook_deliveries')
      .where({ delivery_id: deliveryId })
      .first<DeliveryRow | undefined>();
    return row?.processed_at ? row : null;
  }, `delivery ${deliveryId}`);
}

t.test(
  'code-host webhooks: signatures, redeliveries, issues as tickets, comments, auto-close, records kept true',
  async (t) => {
    const { app, owner, other, host, slug } = await codehostWorld(t);
    const fullName = `${slug}/web`;
    await host.createRepository(fullName, { isPublic: true, files: { 'README.md': '# Web\n' } });
    const inst = await installAndLink(app, owner);
    const ws = await createWorkspace(app, owner, 'Web');
    const repo = (
      await call(app, owner, 'POST', '/v1/repositories', {
        installation_id: inst.id,
        workspace_id: ws.id,
        full_name: fullName,
      })
    ).body;

    /** A real example payload pointed at our installation and repository (the local host's ids are strings). */
    const ours = (p: Addressed) => {
      p.installation = { id: inst.external_id };
      p.repository = {
        ...p.repository,
        id: repo.external_id,
        full_name: fullName,
        name: 'web',
        private: false,
        html_url: repo.html_url,
        default_branch: 'main',
      };
    };

    await t.test('a delivery without a valid signature is refused', async (t) => {
      const d = signedDelivery('ping', undefined, SECRET);
      const unsigned = await deliver(app, { headers: { ...d.headers, 'x-hub-signature-256': '' }, rawBody: d.rawBody });
      t.equal(unsigned.status, 401);
      t.equal(unsigned.body.code, 'invalid_signature');
      const wrongSecret = signedDelivery('ping', undefined, 'another-secret-entirely-0000');
      t.equal((await deliver(app, wrongSecret)).status, 401);
      const tampered = await deliver(app, {
        headers: d.headers,
        rawBody: Buffer.concat([d.rawBody, Buffer.from(' ')]),
      });
      t.equal(tampered.status, 401, 'a body changed after signing');
      const notJson = signPayload('ping', {}, SECRET);
      const bad = Buffer.from('not json');
      const { createHmac } = await import('node:crypto');
      const res = await deliver(app, {
        headers: {
          ...notJson.headers,
          'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(bad).digest('hex')}`,
        },
        rawBody: bad,
      });
      t.equal(res.status, 400);
      t.equal(res.body.code, 'invalid_payload');
      t.equal(Number((await app.db('codehost_webhook_deliveries').count({ n: '*' }))[0].n), 0, 'nothing was recorded');
    });

    await t.test('open-source settings: defaults, an audited change', async (t) => {
      const g = await call(app, owner, 'GET', `/v1/codehost/oss/${ws.id}`);
      t.equal(g.status, 200);
      t.match(g.body, {
        workspace_id: ws.id,
        enabled: false,
        intake: 'opt_in',
        opt_in_label: 'patchwell',
        opt_out_label: 'patchwell-ignore',
        issues: true,
        pull_requests: false,
        auto_close_issues: false,
        comments_per_hour: 10,
        repositories: [{ id: repo.id, full_name: fullName }],
      });
      const p = await call(app, owner, 'PATCH', `/v1/codehost/oss/${ws.id}`, {
        enabled: true,
        auto_close_issues: true,
        comments_per_hour: 1,
      });
      t.equal(p.status, 200, JSON.stringify(p.body));
      t.match(p.body, { enabled: true, auto_close_issues: true, comments_per_hour: 1 });
      const audit = await app
        .db('audit_entries')
        .where({ org_id: owner.organization.id, action: 'codehost.oss_settings_updated' })
        .first<{ changes: unknown }>();
      t.match(audit.changes, { enabled: { before: false, after: true } });
      t.equal(
        (await call(app, owner, 'PATCH', `/v1/codehost/oss/${ws.id}`, { opt_out_label: 'patchwell' })).body.code,
        'labels_equal',
      );
      t.equal(
        (await call(app, other, 'GET', `/v1/codehost/oss/${ws.id}`)).status,
        404,
        "another organization's workspace",
      );
      t.equal((await call(app, other, 'PATCH', `/v1/codehost/oss/${ws.id}`, { enabled: false })).status, 404);
    });

    let ticketId = '';
    let issueNumber = 0;
    await t.test('an issue with the opt-in label opens a ticket; a redelivery is a no-op', async (t) => {
      const unlabelled = signedDelivery('issues', 'opened', SECRET, (p) => {
        ours(p);
        p.issue.number = 900;
        p.issue.labels = [];
      });
      t.equal((await deliver(app, unlabelled)).status, 202);
      t.equal(
        (await processed(app, unlabelled.deliveryId)).outcome,
        'not_opted_in',
        'without the label nothing happens',
      );

      const issue = await host.openIssue(fullName, {
        title: 'Login button does nothing',
        body: 'Clicking it does nothing on Firefox.',
        author: 'octocat',
        labels: ['patchwell'],
      });
      issueNumber = issue.number;
      const d = signedDelivery('issues', 'opened', SECRET, (p) => {
        ours(p);
        Object.assign(p.issue, {
          number: issue.number,
          title: 'Login button does nothing',
          body: 'Clicking it does nothing on Firefox.',
          labels: [{ name: 'patchwell' }],
          state: 'open',
          html_url: issue.url,
        });
        p.issue.user = { ...p.issue.user, login: 'octocat', type: 'User' };
      });
      const first = await deliver(app, d);
      t.equal(first.status, 202);
      t.same(first.body, { ok: true, delivery_id: d.deliveryId, event: 'issues', duplicate: false });
      t.equal((await processed(app, d.deliveryId)).outcome, 'ticket_opened');
      const item = await app
        .db('codehost_items')
        .where({ repository_id: repo.id, number: issue.number })
        .first<{ ticket_id: string }>();
      ticketId = item.ticket_id;
      const ticket = await call(app, owner, 'GET', `/v1/tickets/${ticketId}`);
      t.equal(ticket.status, 200, JSON.stringify(ticket.body));
      t.match(ticket.body, { origin: 'codehost', subject: 'Login button does nothing', workspace_id: ws.id });

      const again = await deliver(app, d);
      t.equal(again.status, 200);
      t.equal(again.body.duplicate, true);
      t.equal(
        Number(
          (await app.db('codehost_webhook_deliveries').where({ delivery_id: d.deliveryId }).count({ n: '*' }))[0].n,
        ),
        1,
      );
      t.equal(
        Number((await app.db('tickets').where({ org_id: owner.organization.id }).count({ n: '*' }))[0].n),
        1,
        'one ticket',
      );
    });

    await t.test('a comment on the issue joins the ticket; bots are left out', async (t) => {
      const d = signedDelivery('issue_comment', 'created', SECRET, (p) => {
        ours(p);
        p.issue.number = issueNumber;
        p.comment = {
          ...p.comment,
          id: 555001,
          body: 'Still broken on 1.2.3',
          user: { ...p.comment.user, login: 'octocat', type: 'User' },
          performed_via_github_app: null,
          created_at: new Date(Date.now() + 1000).toISOString(),
        };
      });
      t.equal((await deliver(app, d)).status, 202);
      t.equal((await processed(app, d.deliveryId)).outcome, 'comment_added');
      const messages = (await app.db('ticket_messages').where({ ticket_id: ticketId }).orderBy('created_at')) as Array<{
        body_text: string | null;
      }>;
      t.same(
        messages.map((m) => m.body_text),
        ['Clicking it does nothing on Firefox.', 'Still broken on 1.2.3'],
      );
      const bot = signedDelivery('issue_comment', 'created', SECRET, (p) => {
        ours(p);
        p.issue.number = issueNumber;
        p.comment = {
          ...p.comment,
          id: 555002,
          body: 'beep',
          user: { ...p.comment.user, login: 'dependabot[bot]', type: 'Bot' },
        };
      });
      await deliver(app, bot);
      t.equal((await processed(app, bot.deliveryId)).outcome, 'bot');
    });

    await t.test('comments are posted within oss_comments_per_hour', async (t) => {
      const comments = app.container.resolve('codehostComments');
      await app.db.transaction(async (trx) => {
        for (const n of [1, 2])
          await comments.enqueue(trx, {
            orgId: owner.organization.id,
            workspaceId: ws.id,
            repositoryId: repo.id,
            number: issueNumber,
            ticketId,
            source: `test:${n}`,
            body: `Reply ${n}`,
          });
      });
      await comments.flush();
      t.same(
        (await host.listComments(fullName, issueNumber)).map((c) => c.body),
        ['Reply 1'],
        'one an hour',
      );
      const rows = (await app.db('codehost_comments').where({ repository_id: repo.id }).orderBy('source')) as Array<{
        status: string;
      }>;
      t.same(
        rows.map((r) => r.status),
        ['posted', 'pending'],
      );
    });

    await t.test('a reply sent on a code-host ticket becomes a comment on its issue', async (t) => {
      const draft = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/drafts`, {
        kind: 'reply',
        body_md: 'Fixed on main, thanks!',
      });
      t.equal(draft.status, 201, JSON.stringify(draft.body));
      const sent = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/drafts/${draft.body.id}/send`, {});
      t.equal(sent.status, 200, 'no customer email is needed: the code host carries the reply');
      const out = sent.body.messages.filter((m) => m.direction === 'out');
      t.same(out.at(-1)?.to_addresses, [], 'no email recipient');
      const deadline = Date.now() + 15_000;
      let row: { body: string; status: string } | undefined;
      while (!row && Date.now() < deadline) {
        row = await app
          .db('codehost_comments')
          .where({ repository_id: repo.id, source: `draft:${draft.body.id}` })
          .first<{ body: string; status: string } | undefined>();
        if (!row) await new Promise((r) => setTimeout(r, 100));
      }
      t.ok(row, 'the reply is queued as a comment');
      t.equal(row?.body, 'Fixed on main, thanks!');
      t.equal(row?.status, 'pending', 'held back by oss_comments_per_hour (one already posted this hour)');
      t.equal(
        (await app.db('mail_messages').where({ org_id: owner.organization.id, template: 'tickets.reply' })).length,
        0,
        'no email is sent',
      );
    });

    await t.test('closing the ticket closes the issue (oss_auto_close_issues)', async (t) => {
      const res = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/close`, { reason: 'resolved' });
      t.equal(res.status, 200, JSON.stringify(res.body));
      const issue = await waitFor(async () => {
        const i = await host.getIssue(fullName, issueNumber);
        return i?.state === 'closed' ? i : null;
      }, 'the issue to close');
      t.equal(issue.stateReason, 'completed');
      const item = await waitFor(async () => {
        const row = await app
          .db('codehost_items')
          .where({ ticket_id: ticketId })
          .first<{ state: string; closed_by_service_at: Date | null } | undefined>();
        return row?.state === 'closed' ? row : null;
      }, 'the item to be recorded closed');
      t.ok(item.closed_by_service_at, 'closed by the service');
    });

    await t.test('installation, repository and push events keep the records true', async (t) => {
      const suspend = signPayload(
        'installation',
        {
          ...webhookExample('installation', 'suspend'),
          installation: {
            ...webhookExample('installation', 'suspend').installation,
            id: inst.external_id,
            account: { login: slug, type: 'Organization' },
            suspended_at: new Date().toISOString(),
          },
        },
        SECRET,
      );
      await deliver(app, suspend);
      t.equal((await processed(app, suspend.deliveryId)).outcome, 'installation_suspend');
      t.ok((await call(app, owner, 'GET', '/v1/codehost')).body.installations[0].suspended_at, 'suspended');

      const priv = signedDelivery('repository', 'privatized', SECRET, (p) => {
        ours(p);
        p.repository.private = true;
        p.repository.visibility = 'private';
      });
      await deliver(app, priv);
      t.equal((await processed(app, priv.deliveryId)).outcome, 'repository_updated');
      t.equal((await call(app, owner, 'GET', `/v1/repositories/${repo.id}`)).body.is_public, false);

      const sha = await host.commitFiles(fullName, { branch: 'main', files: { 'NEW.md': 'new\n' }, message: 'Push' });
      const push = signedDelivery('push', undefined, SECRET, (p) => {
        ours(p);
        p.ref = 'refs/heads/main';
        p.after = sha;
      });
      await deliver(app, push);
      t.equal((await processed(app, push.deliveryId)).outcome, 'index_requested');
      const indexed = await waitFor(async () => {
        const r = (await call(app, owner, 'GET', `/v1/repositories/${repo.id}`)).body;
        return r.index.indexed_sha === sha ? r : null;
      }, 'the index of the pushed commit');
      t.equal(indexed.index.status, 'ready');

      const onboarding = await call(app, owner, 'POST', `/v1/repositories/${repo.id}/onboarding-pr`);
      t.equal(onboarding.body.onboarding_pr.status, 'open', JSON.stringify(onboarding.body.onboarding_pr));
      const number = onboarding.body.onboarding_pr.number as number;
      const pr = (await host.getPullRequest({ installationId: null, fullName }, number))!;
      const merge = await host.mergePullRequest({ installationId: null, fullName }, number, {
        method: 'squash',
        sha: pr.head.sha,
      });
      const closed = signedDelivery('pull_request', 'closed', SECRET, (p) => {
        ours(p);
        Object.assign(p.pull_request, {
          number,
          state: 'closed',
          merged: true,
          merge_commit_sha: merge.sha,
          head: { ...p.pull_request.head, ref: 'patchwell/onboarding', sha: pr.head.sha },
          base: { ...p.pull_request.base, ref: 'main' },
        });
      });
      await deliver(app, closed);
      await processed(app, closed.deliveryId);
      t.equal(
        (await call(app, owner, 'GET', `/v1/repositories/${repo.id}`)).body.onboarding_pr.status,
        'merged',
        'the merged onboarding pull request is recorded',
      );
      const announced = await app
        .db('outbox')
        .where({ type: 'codehost.pull_request_updated', org_id: owner.organization.id })
        .first<{ payload: unknown }>();
      t.match(announced.payload, { repository_id: repo.id, number, state: 'merged', merge_sha: merge.sha });

      const removed = signedDelivery('installation_repositories', 'removed', SECRET, (p: WebhookPayload) => {
        p.installation = { id: inst.external_id };
        p.repositories_removed = [{ id: repo.external_id, full_name: fullName }];
      });
      await deliver(app, removed);
      t.equal((await processed(app, removed.deliveryId)).outcome, 'repositories_disconnected:1');
      t.equal((await call(app, owner, 'GET', `/v1/repositories/${repo.id}`)).status, 404, 'disconnected');
    });
  },
);
