import t from 'tap';
import { onPlan, signUp } from '../../../test/helpers/accounts.js';
import { HOST_SECRET, call, connectRepository, createWorkspace } from '../../fixes/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

const FILES = {
  'README.md': '# Web\n',
  'CONTRIBUTING.md': '# Contributing\nOpen an issue first.\n',
  '.github/CODE_OF_CONDUCT.md': 'Be kind.\n',
  'src/cart.js': 'export function total(items) {\n  return items.reduce((s, i) => s + i.price, 0);\n}\n',
};

// Issue 27, the code settings: an owner whose workspace has a repository of the local code host
// synchronizes the installation, reads the repository's guidelines, creates its labels, sets its
// agent key (never shown again), opens the onboarding pull request, moves execution to a runner
// (a refused combination first; then the workflow preview), replaces the key and deletes the
// unused credential, turns on open-source intake, unlinks the installation, installs it again and connects the repository.
if (browserAvailable(t)) {
  const h = await startConsole(t, {
    adapters: { codeHost: 'codehost-local', options: { 'codehost-local': { webhookSecret: HOST_SECRET } } },
  });

  t.test('an owner manages the code host, the repository, where jobs run and open source', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Webshop', name: 'Olga Owner' });
    await onPlan(h.app, owner.organization.id, 'growth');
    const ws = await createWorkspace(h.app, owner, 'Web');
    const repo = await connectRepository(h.app, owner, ws.id, 'web', FILES);
    const full = `${owner.organization.slug}/web`;
    const execution = async () => (await call(h.app, owner, 'GET', `/v1/onboarding/execution/${ws.id}`)).body;

    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    page.setDefaultTimeout(20_000);
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Code', exact: true }).click();
    await page.getByRole('heading', { name: 'Code settings' }).waitFor();

    // The installation, read again.
    const installation = page.getByRole('group', { name: owner.organization.slug, exact: true });
    await installation.getByRole('button', { name: 'Synchronize' }).click();
    await page.getByText('Account, permissions and suspension read again').waitFor();

    // The repository: its index, guidelines, labels, agent key and onboarding pull request.
    const card = page.getByRole('group', { name: full });
    await card.getByRole('status').filter({ hasText: 'Ready' }).waitFor();
    await card.getByRole('button', { name: 'Read the guidelines again' }).click();
    await card.getByText('CONTRIBUTING.md, .github/CODE_OF_CONDUCT.md').waitFor();
    await card.getByRole('button', { name: 'Create the labels' }).click();
    await card.getByText(/^Labels created .+/).waitFor();
    t.ok((await call(h.app, owner, 'GET', `/v1/repositories/${repo.id}`)).body.labels_created_at, 'the labels exist');
    await card.getByLabel('Agent key (repository CI secret)').fill('sk-test-0123456789wxyz');
    await card.getByRole('button', { name: 'Set the key' }).click();
    await card.getByText(/^Set: ends with wxyz/).waitFor();
    t.equal(await card.getByLabel('Agent key (repository CI secret)').inputValue(), '', 'the field is emptied');
    t.notOk((await page.content()).includes('sk-test-0123456789wxyz'), 'the key is nowhere on the page');
    await card.getByRole('button', { name: 'Open or update the onboarding pull request' }).click();
    await card.getByRole('link', { name: /^#\d+$/ }).waitFor();

    // Execution: a refused combination is explained; a runner over CI shows the workflow it needs.
    const form = page.getByRole('form', { name: 'Execution settings' });
    await form.getByLabel('Where it runs').selectOption('runner');
    await form.getByLabel('Agent', { exact: true }).selectOption('builtin');
    await form.getByLabel('Runner transport').selectOption('github_actions');
    await form.getByRole('button', { name: 'Save the execution settings' }).click();
    t.match(await form.getByRole('alert').textContent(), /built-in/i, 'the rule is explained in the words of the API');
    await form.getByLabel('Agent', { exact: true }).selectOption('agent_1');
    await form.getByLabel('Runner labels').fill('self-hosted, linux');
    await form.getByLabel('New agent API key').fill('sk-run-0123456789abcd');
    await form.getByRole('button', { name: 'Save the execution settings' }).click();
    await page.getByText('Execution settings saved').waitFor();
    const workflow = page.getByRole('region', { name: /^Content of .*\.ya?ml$/ }).first();
    await workflow.waitFor();
    t.match(await workflow.textContent(), /self-hosted/, 'the workflow preview runs on the chosen labels');
    const credentials = page.getByRole('region', { name: 'Stored credentials' });
    await credentials.getByRole('row', { name: /…abcd.*In use/ }).waitFor();
    t.notOk((await page.content()).includes('sk-run-0123456789abcd'), 'the new key is not on the page');
    await expectAccessible(t, page, 'code settings: runner');
    await screenshot(page, 'code-runner-en');

    // Back to the managed sandbox with another agent and key: the first key is unused, and deleted.
    await form.getByLabel('Where it runs').selectOption('managed');
    await form.getByLabel('Agent', { exact: true }).selectOption('agent_2');
    await form.getByLabel('Runner transport').selectOption('');
    await form.getByLabel('New agent API key').fill('key-zyxw-98765432');
    await form.getByRole('button', { name: 'Save the execution settings' }).click();
    await credentials.getByRole('row', { name: /…abcd.*Not used/ }).waitFor();
    await credentials.getByRole('button', { name: 'Delete the credential ending with abcd' }).click();
    await page
      .getByRole('dialog', { name: 'Delete the credential ending with abcd?' })
      .getByRole('button', { name: 'Delete the credential' })
      .click();
    await page.getByText('Credential deleted').waitFor();
    await credentials.getByRole('row', { name: /…abcd/ }).waitFor({ state: 'detached' });
    const after = await execution();
    t.same(
      after.credentials.map((c) => [c.last4, c.in_use]),
      [['5432', true]],
      'only the key in use is left',
    );
    t.match(after, { mode: 'managed', agent: 'agent_2', auth: 'api-key' });

    // Open source: every issue and pull request but those labelled out.
    const oss = page.getByRole('form', { name: 'Open source' });
    await oss.getByLabel('Turn issues and pull requests into tickets').check();
    await oss.getByLabel('Which ones').selectOption('opt_out');
    await oss.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Open-source settings saved').waitFor();
    t.match((await call(h.app, owner, 'GET', `/v1/codehost/oss/${ws.id}`)).body, { enabled: true, intake: 'opt_out' });
    await expectAccessible(t, page, 'code settings');
    await screenshot(page, 'code-en');

    // Unlinking the installation disconnects the repository.
    await installation.getByRole('button', { name: 'Unlink…' }).click();
    await page
      .getByRole('dialog', { name: `Unlink ${owner.organization.slug}?` })
      .getByRole('button', { name: 'Unlink the installation' })
      .click();
    await page.getByText('Unlinked; 1 repository disconnected').waitFor();
    await page.getByText('No repository is connected to this workspace').waitFor();
    t.equal(
      (await call(h.app, owner, 'GET', `/v1/repositories/${repo.id}`)).status,
      404,
      'the repository is disconnected',
    );

    // Installing again from here: the code host's page comes back to the code settings, not onboarding.
    await page.getByRole('button', { name: 'Install the app' }).click();
    await page.getByRole('heading', { name: 'Code settings' }).waitFor();
    await page
      .getByRole('group', { name: owner.organization.slug, exact: true })
      .getByRole('button', { name: 'Synchronize' })
      .waitFor();
    t.match(page.url(), /\/settings\/code$/, 'back on the code settings');
    await page.getByRole('button', { name: `Connect ${full}` }).click();
    await page.getByText(`${full} connected: its code index is being built`).waitFor();
    await page.getByRole('group', { name: full }).getByRole('status').filter({ hasText: 'Ready' }).waitFor();
    t.equal(
      (await call(h.app, owner, 'GET', `/v1/repositories?workspace_id=${ws.id}`)).body.items.length,
      1,
      'connected again from the page',
    );
  });
}
