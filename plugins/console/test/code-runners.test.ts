import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import { SHOP_FILES, call, connectRepository, createWorkspace } from '../../onboarding/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

/** A runner as stored (runners), the columns this test reads. */
interface RunnerRow {
  id: string;
  workspace_id: string;
  name: string;
  token_last4: string;
  revoked_at: Date | null;
}

// Issue 27, the code settings, continued: an owner registers a runner (its token shown once),
// rotates its token with the same name and revokes it after confirming; then sends a test ticket
// through the workspace's own agent: refused with the reason until an agent is chosen, then
// followed until it is diagnosed, with a link to its ticket.
if (browserAvailable(t)) {
  const h = await startConsole(t, {
    adapters: {
      codeHost: 'codehost-local',
      options: { 'codehost-local': { webhookSecret: 'console-runners-codehost-secret-01' } },
    },
    // The fix loop and the runner plugin are off under the test helpers (on in the product).
    plugins: {
      fixes: { enabled: true, options: { pollMs: 100, leaseMs: 2000, backoffMs: [50, 100] } },
      runner: { enabled: true },
    },
  });

  t.test('an owner registers, rotates and revokes a runner, then sends a test ticket', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Runnerco', name: 'Rhea Runner' });
    const ws = await createWorkspace(h.app, owner, 'Shop');
    const repo = await connectRepository(h.app, owner, ws.id, 'shop', SHOP_FILES);
    t.equal((await call(h.app, owner, 'POST', '/v1/onboarding/workspace', { workspace_id: ws.id })).status, 200);
    t.equal((await call(h.app, owner, 'POST', '/v1/onboarding/repository', { repository_id: repo.id })).status, 200);

    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    page.setDefaultTimeout(30_000);
    await page.goto('/settings/code');
    const runners = page.getByRole('region', { name: 'Runners' });
    await runners.getByLabel('Runner name').fill('ci-1');
    await runners.getByRole('button', { name: 'Register or rotate' }).click();
    const created = page.getByRole('dialog', { name: 'Runner ci-1 registered' });
    const first = (await created.getByLabel('Runner token').textContent())!;
    t.match(first, /^pw_runner_/, 'the token, once');
    await created.getByRole('button', { name: 'I have copied it' }).click();
    t.equal(await page.getByText(first).count(), 0, 'not on the page after the dialog');
    const row = await h.app.db<RunnerRow>('runners').where({ workspace_id: ws.id, name: 'ci-1' }).first();
    if (!row) throw new Error('the runner is stored');
    t.equal(row.token_last4, first.slice(-4));
    await runners.getByText(`…${first.slice(-4)}`).waitFor();
    await expectAccessible(t, page, 'code settings with runners');

    // The same name again: a new token; the old one stops.
    await runners.getByRole('button', { name: 'Register or rotate' }).click();
    const rotated = page.getByRole('dialog', { name: 'New token for runner ci-1' });
    const second = (await rotated.getByLabel('Runner token').textContent())!;
    t.not(second, first, 'a new token');
    await rotated.getByRole('button', { name: 'I have copied it' }).click();
    const claimOld = await h.app.server.inject({
      method: 'POST',
      url: '/v1/runner/claim',
      headers: { authorization: `Bearer ${first}` },
      payload: {},
    });
    t.equal(claimOld.statusCode, 401, 'the old token is refused');

    await runners.getByRole('button', { name: 'Revoke' }).click();
    const ask = page.getByRole('dialog', { name: 'Revoke runner ci-1?' });
    await ask.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Runner ci-1 revoked.').waitFor();
    t.ok((await h.app.db<RunnerRow>('runners').where({ id: row.id }).first())?.revoked_at, 'revoked');

    // The test ticket: the API's reason until an agent is chosen, then followed to its diagnosis.
    const test = page.getByRole('region', { name: 'Try it with a test ticket' });
    await test.getByRole('button', { name: 'Send a test ticket' }).click();
    await test.getByRole('alert').waitFor();
    t.match(await test.getByRole('alert').textContent(), /agent/i, 'refused until an agent is chosen');
    const agent = await call(h.app, owner, 'POST', '/v1/onboarding/agent', {
      answer: 'no_agent',
      mode: 'managed',
      agent: 'builtin',
      auth: 'api-key',
    });
    t.equal(agent.status, 200);
    await test.getByRole('button', { name: 'Send a test ticket' }).click();
    await test.getByRole('link', { name: 'Open the test ticket' }).waitFor();
    await test.getByText(/^Done: /).waitFor({ timeout: 60_000 });
    await screenshot(page, 'code-runners-en');
    const run = (await call(h.app, owner, 'GET', '/v1/onboarding/demo')).body;
    t.match(run, { mode: 'workspace', done: true, status: 'completed' });
    await test.getByRole('link', { name: 'Open the test ticket' }).click();
    await page.waitForURL(`**/tickets/${(run.ticket as { id: string }).id}`);
  });
}
