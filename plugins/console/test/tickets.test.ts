import t from 'tap';
import type { Locator } from 'playwright-core';
import { addMember } from '../../../test/helpers/accounts.js';
import { browserAvailable, expectAccessible, screenshot } from './browser.js';
import { customerWrites, openShop, signedInPage, startTicketsConsole } from './tickets-walk.js';

// The acceptance walk of issue 26 from the inbox on, by clicking only: a customer's email arrives,
// the owner opens it from the inbox, reads the diagnosis, edits and sends the draft, reads the
// diff of the scripted managed agent's fix, finds it in the approvals queue, approves it at the
// shown commit, watches the release finish, and the public status page says resolved. Meanwhile
// a reviewer looks at the same ticket and is offered no approver action.
if (browserAvailable(t)) {
  const h = await startTicketsConsole(t);

  t.test('an owner takes a customer email from the inbox to a released fix and a resolved status page', async (t) => {
    const shop = await openShop(h, { locale: 'en', orgName: 'Storefront', name: 'Ada Lovelace' });
    const id = await customerWrites(
      h,
      shop,
      'Cart total is wrong',
      'The cart total is wrong: cartTotal ignores the quantity. Error 500 at checkout.',
    );
    const reviewer = await addMember(h.app, shop.owner, { role: 'reviewer', workspaceIds: [shop.workspace.id] });
    const page = await signedInPage(h, shop.owner, { width: 1440, locale: 'en', colorScheme: 'light' });

    // The inbox: the ticket is there; a filter lives in the address and narrows the list.
    await page.goto('/tickets');
    await page.getByRole('heading', { name: 'Tickets', exact: true }).waitFor();
    const row = page.getByRole('link', { name: 'Cart total is wrong' });
    await row.waitFor();
    await page.getByLabel('Origin').selectOption('widget');
    await page.getByText('No ticket matches these filters').waitFor();
    t.match(page.url(), /origin=widget/, 'the filter is kept in the address');
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    // Counts (GET /v1/tickets/counts) beside the list; "Needs the team" is a filter of the address too.
    await page.getByText(/^Tickets in all: 1 ·/).waitFor();
    await page.getByLabel('Needs the team').selectOption('no');
    t.match(page.url(), /needs_team=no/, 'the needs-the-team filter is kept in the address');
    await page.getByLabel('Needs the team').selectOption('');
    t.notMatch(page.url(), /needs_team/);
    await page.getByRole('searchbox', { name: 'Search tickets' }).fill('quantity');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await row.waitFor();
    t.match(page.url(), /q=quantity/, 'the search is kept in the address');
    await expectAccessible(t, page, 'inbox');
    await screenshot(page, 'inbox-en-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'inbox-en-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // The ticket page: the conversation and, once the builtin assistant is done, the diagnosis.
    await row.click();
    await page.getByRole('heading', { name: 'Cart total is wrong', level: 1 }).waitFor();
    await page.getByText('cartTotal ignores the quantity').first().waitFor();
    await page.getByRole('heading', { name: 'Diagnosis' }).waitFor();
    const reference = page.getByRole('region', { name: 'Diagnosis' }).getByRole('link', { name: /^cart\.js/ });
    await reference.first().waitFor();
    t.match(await reference.first().getAttribute('href'), /cart\.js/, 'a reference links into the repository');
    await page.getByText('A fix was started').waitFor();

    // The draft to the customer: edited, then sent; it joins the conversation as a reply.
    const draft = page.getByLabel('Message to the customer');
    await draft.fill('Hello Ada, we found the cause: the cart total ignores quantities. A fix is on its way.');
    await page.getByRole('button', { name: 'Send to the customer' }).click();
    await page.getByText('Sent to the customer.').waitFor();
    await page.getByRole('region', { name: 'Conversation' }).getByText('A fix is on its way.').waitFor();
    const mail = await h.outbox.waitFor(
      (m) =>
        m.to.some((to) => to.includes('ada.lovelace@example.com')) && m.email.text.includes('A fix is on its way.'),
      15_000,
    );
    t.ok(mail, 'the edited text went to the customer');

    // The fix: verified with a pull request; its diff is the agent's change.
    const approve = page.getByRole('button', { name: /^Approve at [0-9a-f]{7}$/ });
    await approve.waitFor({ timeout: 90_000 });
    await page.getByRole('button', { name: 'Show the diff' }).click();
    await page.getByRole('region', { name: 'Changes to cart.js' }).getByText('i.price * i.qty').waitFor();
    await page.getByRole('button', { name: 'Show the log' }).first().click();
    await page.getByText('fixing cart').waitFor();
    await expectAccessible(t, page, 'ticket page, fix waiting for approval');
    await screenshot(page, 'ticket-en-light');
    await page.emulateMedia({ colorScheme: 'dark' });
    await screenshot(page, 'ticket-en-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // A reviewer of the workspace reads the same page and is offered no approver action.
    const asReviewer = await signedInPage(h, reviewer, { width: 1440, locale: 'en', colorScheme: 'light' });
    await asReviewer.goto(`/tickets/${id}`);
    await asReviewer.getByRole('button', { name: 'Show the diff' }).waitFor();
    await asReviewer.getByRole('button', { name: 'Request changes' }).waitFor();
    t.equal(await asReviewer.getByRole('button', { name: /^Approve/ }).count(), 0, 'no approve for a reviewer');
    t.equal(await asReviewer.getByRole('button', { name: 'Reject' }).count(), 0, 'no reject for a reviewer');
    t.equal(
      await asReviewer.getByRole('link', { name: 'Approvals' }).count(),
      0,
      "no approvals queue in a reviewer's navigation",
    );

    // The approvals queue lists the fix at its head; the owner goes back to it from there.
    const head = (await page.getByRole('button', { name: /^Approve at/ }).textContent())!
      .replace('Approve at ', '')
      .trim();
    await page.getByRole('link', { name: 'Approvals' }).click();
    await page.getByRole('heading', { name: 'Approvals', level: 1 }).waitFor();
    await page.getByRole('cell', { name: head }).waitFor();
    await expectAccessible(t, page, 'approvals');
    await screenshot(page, 'approvals-en-light');
    await page.getByRole('link', { name: 'Review' }).click();

    // Approval at the shown commit, by keyboard alone: Enter opens the dialog, Tab reaches its
    // fields, Enter approves. The release runs while the page follows it without a reload.
    await approve.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: `Approve the fix at ${head}` });
    await dialog.waitFor();
    const tabTo = async (target: Locator) => {
      for (let i = 0; i < 8 && !(await target.evaluate((el) => el === document.activeElement)); i++)
        await page.keyboard.press('Tab');
      t.ok(await target.evaluate((el) => el === document.activeElement), 'reached by Tab inside the dialog');
    };
    await tabTo(dialog.getByLabel('Public summary'));
    await page.keyboard.type('The cart total now counts quantities.');
    await tabTo(dialog.getByRole('button', { name: `Approve commit ${head}` }));
    await page.keyboard.press('Enter');
    await page.getByText('The customer sees: Resolved').waitFor({ timeout: 60_000 });
    await page.getByRole('region', { name: 'Release' }).getByText('Released', { exact: true }).waitFor();
    const approval = await h.app
      .db('fix_approvals')
      .join('fix_attempts', 'fix_attempts.id', 'fix_approvals.fix_attempt_id')
      .where('fix_attempts.ticket_id', id)
      .first<{ sha: string }>('fix_approvals.sha');
    t.equal(approval.sha.slice(0, 7), head, 'the approval names the commit the page showed');
    await screenshot(page, 'ticket-released-en-light');

    // The customer's status page, opened from the ticket page.
    const [status] = await Promise.all([
      page.context().waitForEvent('page'),
      page.getByRole('link', { name: 'Open the status page' }).click(),
    ]);
    await status.getByText('Resolved', { exact: true }).first().waitFor();
    t.match(
      await status.locator('body').innerText(),
      /The cart total now counts quantities\./,
      'the public summary approved with the fix',
    );
  });
}
