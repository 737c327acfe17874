import t from 'tap';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import { newId } from '../../../core/data/ids.js';
import { SECRET, emailIn, settle, workspace } from '../../privacy/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27 on the ticket page: a long-running ticket's history beyond the page's newest 50 drafts
// is read on request (GET /v1/tickets/{id}/drafts from the page's next_cursor), and an owner
// deletes a ticket for a privacy request after confirming (DELETE /v1/privacy/tickets/{id});
// a reviewer is not offered the deletion.
if (browserAvailable(t)) {
  const h = await startConsole(t, { adapters: { options: { 'mail-outbox': { webhookSecret: SECRET } } } });

  t.test('an owner reads the older drafts of a long ticket, then deletes the ticket', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Umbrella', name: 'Uma Owner' });
    const ws = await workspace(h.app, owner);
    const ticketId = await emailIn(
      h.app,
      ws.inbound_address,
      'Grace Hopper <grace@customer.example>',
      'The export button does nothing',
    );
    await settle(h.app);
    // 55 discarded drafts from weeks of back and forth, older than anything the service wrote.
    const start = Date.now() - 30 * 86_400_000;
    await h.app.db('ticket_drafts').insert(
      Array.from({ length: 55 }, (_, i) => ({
        id: newId('drf'),
        org_id: owner.organization.id,
        ticket_id: ticketId,
        kind: 'reply',
        status: 'discarded',
        language: 'en',
        body_md: `Old reply number ${i + 1}`,
        discarded_at: new Date(start + i * 60_000),
        discard_reason: 'superseded',
        created_at: new Date(start + i * 60_000),
        updated_at: new Date(start + i * 60_000),
      })),
    );
    const total = Number((await h.app.db('ticket_drafts').where({ ticket_id: ticketId }).count({ n: '*' }).first())!.n);

    const reviewer = await signedInPage(
      h,
      await addMember(h.app, owner, { role: 'reviewer', name: 'Rita Reviewer', workspaceIds: [ws.id] }),
      { width: 1440 },
    );
    await reviewer.goto(`/tickets/${ticketId}`);
    await reviewer.getByRole('heading', { name: 'Drafts' }).waitFor();
    t.equal(
      await reviewer.getByRole('button', { name: 'Delete the ticket…' }).count(),
      0,
      'no deletion for a reviewer',
    );
    await reviewer.context().close();

    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto(`/tickets/${ticketId}`);
    const more = page.getByRole('button', { name: `Show ${total - 50} older drafts` });
    await more.click();
    const older = page.getByRole('region', { name: 'Older drafts' });
    await older.getByText('Old reply number 1', { exact: true }).waitFor();
    t.equal(await older.locator('li').count(), total - 50, "every draft beyond the page's 50, oldest last");
    await expectAccessible(t, page, 'ticket with older drafts');

    await page.getByRole('button', { name: 'Delete the ticket…' }).click();
    const ask = page.getByRole('dialog', { name: 'Delete this ticket for good?' });
    await ask.getByText('This cannot be undone.', { exact: false }).waitFor();
    await ask.getByRole('button', { name: 'Delete for good' }).click();
    await page.getByRole('heading', { name: 'Tickets', exact: true }).waitFor();
    await page.getByText(/was deleted\.$/).waitFor();
    await screenshot(page, 'ticket-deleted-en');
    t.equal(await h.app.db('tickets').where({ id: ticketId }).first(), undefined, 'the ticket is gone');
    t.equal(
      Number((await h.app.db('ticket_drafts').where({ ticket_id: ticketId }).count({ n: '*' }).first())!.n),
      0,
      'with its drafts',
    );
    t.ok(
      await h.app.db('audit_entries').where({ org_id: owner.organization.id, action: 'ticket.deleted' }).first(),
      'audited',
    );
  });
}
