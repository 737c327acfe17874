import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import { call, connectRepository } from '../../fixes/test/helpers.js';
import { SHOP_FILES } from '../../onboarding/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';

// An owner whose workspace has a repository but no agent yet opens the wizard's last step: the
// demo asks for consent to clone into the managed sandbox, then runs through the fix loop on the
// offline defaults (agent-builtin) while the page shows its progress, and ends with its outcome,
// all without a reload. The same service's local code host has no sign-in accounts (the embedded
// defaults): the sign-in page and the profile say so instead of offering what cannot work.
if (browserAvailable(t)) {
  // The fix loop is on in the product's defaults; tests turn it on (test/helpers/db.ts), polling fast.
  const h = await startConsole(t, {
    plugins: { fixes: { enabled: true, options: { pollMs: 100, leaseMs: 2000, backoffMs: [50, 100] } } },
  });

  t.test('an owner allows the demo and watches it diagnose a ticket on their code', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Shop', name: 'Grace Hopper', email: 'grace@shop.example' });
    const ws = await call(h.app, owner, 'POST', '/v1/workspaces', { name: 'Shop' });
    await call(h.app, owner, 'POST', '/v1/onboarding/workspace', { workspace_id: ws.body.id });
    const repo = await connectRepository(h.app, owner, ws.body.id, 'shop', {
      'README.md': SHOP_FILES['README.md'],
      'src/cart.js': SHOP_FILES['src/cart.js'],
    });
    const step = await call(h.app, owner, 'POST', '/v1/onboarding/repository', { repository_id: repo.id });
    t.equal(step.status, 200, 'the repository step is done');

    const { context, page } = await h.open({ width: 1440, locale: 'en', colorScheme: 'dark' });
    await context.addCookies([{ name: 'pw_session', value: owner.cookie.split('=')[1], url: h.base }]);
    await page.goto('/onboarding');
    await page.getByRole('heading', { name: 'Channels' }).waitFor();
    // The last step is always reachable from the steps list.
    await page
      .getByRole('navigation', { name: 'Onboarding steps' })
      .getByRole('button', { name: 'Done', exact: true })
      .click();
    await page.getByRole('heading', { name: 'See it work on your code' }).waitFor();
    await page
      .getByText("The demo clones your repository into Patchwell's managed sandbox. Do you allow it?")
      .waitFor();
    t.equal(await page.getByRole('button', { name: 'Start the demo' }).count(), 0, 'no start before consent');
    await expectAccessible(t, page, 'onboarding: demo consent (dark)');
    await screenshot(page, 'onboarding-demo-consent-en-dark');

    // Navigations of the page itself: none from here on (the progress is polled, not reloaded).
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations++;
    });
    await page.getByRole('button', { name: 'Allow the demo' }).click();
    // Granting starts the demo: the customer's email first, then the progress, then the outcome.
    await page.getByText(/Demo email from .+: “.+”/).waitFor();
    const outcome = page.getByRole('status').filter({ hasText: /The demo is done|The demo stopped/ });
    // The running phase, named (it may be over before the first poll on a fast machine).
    const progress = page.getByRole('progressbar', {
      name: /^(Choosing a case|Indexing the repository|Reading the code|Diagnosing|Writing a fix)…$/,
    });
    await progress.or(outcome).first().waitFor();
    if (await progress.count()) await expectAccessible(t, page, 'onboarding: demo running (dark)');
    await outcome.waitFor({ timeout: 60_000 });
    t.match(
      await outcome.textContent(),
      /^The demo is done: (a reply is drafted|the case goes to your team)\.$/,
      'the outcome, in words',
    );
    await page
      .getByRole('heading', { name: /^Diagnosis( \(confidence \d+%\)|: no category fits, the team reads it)$/ })
      .waitFor();
    t.equal(navigations, 0, 'the progress and the outcome arrived without a reload');
    t.equal(
      await page.getByRole('button', { name: 'Run the demo again' }).count(),
      0,
      'a diagnosed demo is not offered again',
    );
    await expectAccessible(t, page, 'onboarding: demo done (dark)');
    await screenshot(page, 'onboarding-demo-done-en-dark');

    const demo = await call(h.app, owner, 'GET', '/v1/onboarding/demo');
    t.match(demo.body, { status: 'completed', phase: 'done', mode: 'managed' }, 'the service agrees');
  });

  // This service runs the local code host as the embedded defaults have it: with no sign-in accounts.
  t.test('where the code host signs nobody in, sign-in says so and the profile offers no link', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Bakery', name: 'Ada Byron', email: 'ada@bakery.example' });
    const { context, page } = await h.open({ width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/login');
    await page.getByRole('link', { name: 'Continue with the code host' }).click();
    await page.getByRole('alert').filter({ hasText: 'Code host sign-in is not available' }).waitFor();
    t.match(
      page.url(),
      /\/login\?error=codehost_sign_in_unavailable$/,
      'back on sign-in, not on a form that cannot succeed',
    );
    await expectAccessible(t, page, 'sign in: code host unavailable');

    await context.addCookies([{ name: 'pw_session', value: owner.cookie.split('=')[1], url: h.base }]);
    await page.goto('/settings/profile');
    await page.getByText('Signing in with the code host is not set up on this service.').waitFor();
    t.equal(
      await page.getByRole('link', { name: 'Link your code host account' }).count(),
      0,
      'no link that cannot work',
    );
  });
}
