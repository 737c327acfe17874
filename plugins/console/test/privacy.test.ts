import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { SECRET, emailIn, settle, traces, workspace } from '../../privacy/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the privacy section: an owner starts an export of the organization's data (the link
// arrives by email and downloads the archive), erases an end user after confirming (the rows by
// table, and nothing of them left), and closes the organization by typing its slug (a wrong one
// refused at the field); every session stops. An admin is offered only the erasure.
if (browserAvailable(t)) {
  const h = await startConsole(t, { adapters: { options: { 'mail-outbox': { webhookSecret: SECRET } } } });

  t.test('an owner exports the data, erases an end user and closes the organization', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Globex', name: 'Olga Owner' });
    const ws = await workspace(h.app, owner);
    await emailIn(h.app, ws.inbound_address, 'Grace Hopper <grace@customer.example>', 'My order never arrived');
    await settle(h.app);
    t.not(Object.keys(await traces(h.app, 'grace@customer.example')).length, 0, 'the end user is in the data');

    // An admin: erasure only (export and closure are the owners').
    const admin = await signedInPage(h, await addMember(h.app, owner, { role: 'admin', name: 'Adam Admin' }), {
      width: 1440,
    });
    await admin.goto('/privacy');
    await admin.getByRole('heading', { name: 'Erase an end user' }).waitFor();
    t.equal(
      await admin.getByRole('heading', { name: "Export the organization's data" }).count(),
      0,
      'no export for an admin',
    );
    t.equal(await admin.getByRole('heading', { name: 'Close the organization' }).count(), 0, 'no closure for an admin');
    await admin.context().close();

    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Privacy', exact: true }).click();
    await page.getByRole('heading', { name: 'Privacy', exact: true }).waitFor();

    // The export: its state at once, the link by email, the archive behind it.
    await page.getByRole('button', { name: 'Start an export' }).click();
    await page.getByText('The export is being built').waitFor();
    await page.getByText(`The download link will be emailed to ${owner.user.email}`).waitFor();
    const mail = await h.outbox.waitFor(
      (m) => m.to.includes(owner.user.email) && /export is ready/.test(m.subject),
      20_000,
    );
    const link = new URL(mail.links.find((l) => new URL(l).pathname.startsWith('/downloads/privacy-exports/'))!);
    const archive = await h.app.server.inject({ method: 'GET', url: link.pathname });
    t.equal(archive.statusCode, 200, 'the emailed link downloads the archive');
    t.equal(archive.headers['content-type'], 'application/gzip');

    // Erasing the end user, after confirming.
    await page.getByLabel('Their email address').fill('grace@customer.example');
    await page.getByRole('button', { name: 'Erase…' }).click();
    const ask = page.getByRole('dialog', { name: 'Erase grace@customer.example?' });
    await ask.getByRole('button', { name: 'Erase everything about them' }).click();
    await page.getByText(/^Erased\. Rows deleted or rewritten: [1-9]/).waitFor();
    await page
      .getByRole('region', { name: 'Rows by table' })
      .getByRole('cell', { name: 'tickets', exact: true })
      .waitFor();
    t.same(await traces(h.app, 'grace@customer.example'), {}, 'nothing of them is left');
    await expectAccessible(t, page, 'privacy page');
    await screenshot(page, 'privacy-en');

    // Closing: what happens is said first; a wrong slug is refused at the field.
    const slug = owner.organization.slug;
    await page.getByText('All data is deleted within 30 days.').waitFor();
    await page.getByLabel(`Type ${slug} to confirm`).fill(`${slug}-nope`);
    await page.getByRole('button', { name: 'Close the organization' }).click();
    await page.getByText(`Type exactly ${slug}, the organization's short name`).waitFor();
    t.equal(await page.getByLabel(`Type ${slug} to confirm`).getAttribute('aria-invalid'), 'true');
    t.equal(
      await h.app
        .db('privacy_closures')
        .where({ org_id: owner.organization.id })
        .count('* as n')
        .first()
        .then((r) => Number(r!.n)),
      0,
      'not closed',
    );
    await page.getByLabel('Why are you leaving? (optional)').fill('Moving to another tool');
    await page.getByLabel(`Type ${slug} to confirm`).fill(slug);
    await page.getByRole('button', { name: 'Close the organization' }).click();
    await page.getByText(/^Globex was closed/).waitFor();
    await page.getByText(/^All of its data is deleted by/).waitFor();
    await expectAccessible(t, page, 'organization closed');
    await screenshot(page, 'privacy-closed-en');
    const me = await h.app.server.inject({ method: 'GET', url: '/v1/auth/me', ...owner.auth });
    t.equal(me.statusCode, 401, 'the session has stopped');
    await page.getByRole('link', { name: 'Go to sign-in' }).click();
    await page.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
  });
}
