import t from 'tap';
import type { LocalCodeHost } from '../../../adapters/codehost-local/index.js';
import { signUp } from '../../../test/helpers/accounts.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';

// An owner who just signed up goes through the wizard: workspace, a repository of the local code
// host (its install page sends the browser back), channels skipped, an agent choice the rules
// refuse and then one they accept, logs skipped, the demo started, finish; then reopens a step.
if (browserAvailable(t)) {
  const h = await startConsole(t);

  t.test('an owner completes onboarding with a repository of the local code host', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Webshop', name: 'Ada Lovelace', email: 'ada@storefront.example' });
    await (h.app.container.resolve('codeHost') as LocalCodeHost).createRepository(
      `${owner.organization.slug}/storefront`,
      {
        files: {
          'README.md': '# Storefront\n\nRun `npm start`.\n',
          'src/cart.js': 'export function total(items) {\n  throw new Error("not implemented");\n}\n',
        },
      },
    );
    const { context, page } = await h.open({ width: 1440, locale: 'en', colorScheme: 'light' });
    await context.addCookies([{ name: 'pw_session', value: owner.cookie.split('=')[1], url: h.base }]);

    await page.goto('/');
    await page.getByRole('heading', { name: 'Your first workspace' }).waitFor();
    t.match(page.url(), /\/onboarding$/, 'an owner who has not finished onboarding starts there');
    await page.getByLabel('Workspace name').fill('Storefront');
    await page.getByRole('button', { name: 'Create workspace' }).click();

    await page.getByRole('heading', { name: 'Repository', exact: true }).waitFor();
    await expectAccessible(t, page, 'onboarding: repository');
    await page.getByRole('button', { name: 'Connect the code host' }).click();
    // codehost-local's install page redirects to /settings/code-host/installed, which links the
    // installation and comes back here with the repositories it reaches.
    await page.getByRole('button', { name: `Use ${owner.organization.slug}/storefront` }).click();

    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    await page.getByText(/storefront-\w+@inbound\./).waitFor();
    await page.getByRole('button', { name: 'Skip for now' }).click();

    await page.getByRole('heading', { name: 'Agent', exact: true }).waitFor();
    await page.getByRole('combobox', { name: 'Where it runs' }).selectOption('runner');
    await page.getByRole('combobox', { name: 'Agent', exact: true }).selectOption('builtin');
    await page.getByRole('button', { name: 'Save and continue' }).click();
    // Rule 3: the built-in assistant runs inside the service, never on a runner.
    const refusal = page.getByRole('alert');
    await refusal.waitFor();
    t.match(await refusal.textContent(), /built-in/i, 'the forbidden combination is explained in the words of the API');
    await expectAccessible(t, page, 'onboarding: agent refused');
    await screenshot(page, 'onboarding-agent-en-light');
    await page.getByRole('combobox', { name: 'Where it runs' }).selectOption('managed');
    await page.getByRole('button', { name: 'Save and continue' }).click();

    await page.getByRole('heading', { name: 'Logs' }).waitFor();
    await page.getByRole('button', { name: 'Skip for now' }).click();
    await page.getByRole('heading', { name: 'See it work on your code' }).waitFor();
    // The workspace runs in the managed sandbox, so the demo needs no further consent; its
    // progress is polled while it runs.
    await page.getByRole('button', { name: 'Start the demo' }).click();
    await page
      .getByRole('progressbar')
      .or(page.getByText(/The demo is done|The demo stopped/))
      .first()
      .waitFor();
    await page.getByText('Demo email from').waitFor();
    await expectAccessible(t, page, 'onboarding: demo');
    await page.getByRole('button', { name: 'Finish onboarding' }).click();

    await page.getByRole('heading', { name: 'Tickets', exact: true }).waitFor();
    // The demo's ticket is the first of the workspace.
    await page.getByRole('table', { name: 'Tickets' }).getByRole('row').nth(1).waitFor();
    await expectAccessible(t, page, 'tickets');
    await screenshot(page, 'tickets-en-light');

    await page.getByRole('link', { name: 'Onboarding' }).click();
    await page.getByRole('button', { name: 'Channels' }).click();
    await page.getByRole('button', { name: 'Reopen this step' }).click();
    await page.getByRole('button', { name: 'Mark as done' }).click();
    await page.getByRole('heading', { name: 'See it work on your code' }).waitFor();
    const state = (await h.app.server.inject({ url: '/v1/onboarding', ...owner.auth })).payload;
    t.match(JSON.parse(state), {
      steps: [
        { id: 'repository', status: 'done' },
        { id: 'channels', status: 'done' },
        { id: 'agent', status: 'done' },
        { id: 'logs', status: 'skipped' },
      ],
    });
  });
}
