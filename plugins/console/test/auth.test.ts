import t from 'tap';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';

// A new owner finds the console, signs up, confirms the address from the emailed link, signs out,
// mistypes the password, signs in; later forgets the password and uses an emailed sign-in link.
if (browserAvailable(t)) {
  const h = await startConsole(t);
  const email = 'ada@webshop.example';
  const password = 'correct horse battery staple';

  t.test('a new owner signs up, verifies the address from the email and signs in again', async (t) => {
    const { page } = await h.open({ width: 1440, locale: 'en', colorScheme: 'light' });

    await page.goto('/');
    await page.getByRole('heading', { name: 'Sign in to Patchwell' }).waitFor();
    t.match(page.url(), /\/login$/, 'a visitor without a session lands on sign-in');
    await expectAccessible(t, page, 'sign in');
    await screenshot(page, 'sign-in-en-light');

    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    await page.getByLabel('Your name').fill('Ada Lovelace');
    await page.getByLabel('Work email').fill(email);
    await page.getByLabel('Password').fill('short');
    await page.getByLabel('Company or project name').fill('Webshop');
    await page.getByRole('button', { name: 'Create account' }).click();
    // The API's own validation, shown at the fields it names.
    await page.getByText('Check the highlighted fields.').waitFor();
    t.equal(
      await page.getByLabel('Password').getAttribute('aria-invalid'),
      'true',
      'the short password is marked at its field',
    );
    await expectAccessible(t, page, 'sign up with errors');

    await page.getByLabel('Password').fill(password);
    await page.getByLabel('I accept the terms of service and the privacy policy').check();
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.getByRole('heading', { name: 'Your first workspace' }).waitFor();
    await page.getByText('Confirm your email address: we sent you a link.').waitFor();

    await page.goto(await h.link(email, /./, '/verify-email'));
    await page.getByText(`${email} is confirmed.`).waitFor();
    await expectAccessible(t, page, 'verify email');
    await page.getByRole('link', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Your first workspace' }).waitFor();
    t.equal(
      await page.getByText('Confirm your email address: we sent you a link.').count(),
      0,
      'the reminder is gone once confirmed',
    );

    await page.getByRole('button', { name: 'Account: Ada Lovelace' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to Patchwell' }).waitFor();

    // A page behind the session sends the person to sign-in and back afterwards.
    await page.goto('/settings/profile');
    await page.getByRole('heading', { name: 'Sign in to Patchwell' }).waitFor();
    t.match(page.url(), /\/login\?redirect_to=%2Fsettings%2Fprofile$/);
    // By keyboard alone: Tab to the address, type, Tab to the password, Enter.
    for (let i = 0; i < 6 && !(await page.getByLabel('Email').evaluate((el) => el === document.activeElement)); i++)
      await page.keyboard.press('Tab');
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    await page.keyboard.type('not my password');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Wrong email or password' }).waitFor();
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.getByRole('heading', { name: 'Your profile' }).waitFor();
    await expectAccessible(t, page, 'profile');
  });

  t.test('a person who forgot the password resets it, then signs in with an emailed link on a phone', async (t) => {
    const { page } = await h.open({ width: 375, locale: 'en', colorScheme: 'dark' });
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Send the reset link' }).click();
    await page.getByText(`If ${email} has an account, a reset link is on its way.`).waitFor();
    await expectAccessible(t, page, 'forgot password (375 px, dark)');

    await page.goto(await h.link(email, /./, '/reset-password'));
    await page.getByLabel('New password', { exact: true }).fill('a new long password');
    await page.getByLabel('Repeat the new password').fill('a new long password');
    await page.getByRole('button', { name: 'Save and sign in' }).click();
    await page.getByRole('heading', { name: 'Your first workspace' }).waitFor();
    await screenshot(page, 'onboarding-workspace-en-dark-375');

    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Account: Ada Lovelace' }).click();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Email').fill(email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByText(`If ${email} has an account, a sign-in link is on its way.`).waitFor();
    await page.goto(await h.link(email, /./, '/magic-link'));
    await page.getByRole('heading', { name: 'Your first workspace' }).waitFor();
    const used = await h.link(email, /./, '/magic-link');
    await page.goto(used);
    await page.getByRole('alert').filter({ hasText: 'This link is no longer valid' }).waitFor();
    t.pass('an emailed link works once');
  });
}
