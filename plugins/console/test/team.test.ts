import t from 'tap';
import { addMember, insertWorkspace, signUp } from '../../../test/helpers/accounts.js';
import { browserAvailable, copyShownSecret, expectAccessible, screenshot, startConsole } from './browser.js';
import { fitsWidth, signedInPage } from './tickets-walk.js';

// Issue 27, members, invitations and API tokens: an owner changes a reviewer's role, invites a
// client viewer to one workspace and revokes the invitation, removes a member; creates an API
// token whose secret is shown once (copied), then only its last four characters, and revokes it.
// An admin is offered nothing on the owner; the token walk again in Italian on a phone.
if (browserAvailable(t)) {
  const h = await startConsole(t);

  t.test('an owner manages members, invitations and an API token', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Contoso', name: 'Olga Owner' });
    const ws = await insertWorkspace(h.app, owner.organization.id, { name: 'Contoso support' });
    const reviewer = await addMember(h.app, owner, { role: 'reviewer', name: 'Rick Reviewer', workspaceIds: [ws.id] });
    await addMember(h.app, owner, { role: 'client_viewer', name: 'Carl Client', workspaceIds: [ws.id] });
    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Team', exact: true }).click();
    await page.getByRole('heading', { name: 'Members' }).waitFor();
    await page.getByText('Rick Reviewer').waitFor();
    t.equal(
      await page.getByRole('button', { name: 'Change role of Olga Owner' }).count(),
      0,
      'nobody changes their own role here',
    );

    // A role change: the reviewer becomes an admin (owners and admins open every workspace).
    await page.getByRole('button', { name: 'Change role of Rick Reviewer' }).click();
    const edit = page.getByRole('dialog', { name: 'Role of Rick Reviewer' });
    await edit.getByLabel('Role', { exact: true }).selectOption('admin');
    t.equal(
      await edit.getByRole('group', { name: 'Workspaces they can open' }).count(),
      0,
      'no workspace choice for an admin',
    );
    await edit.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Rick Reviewer is now Admin').waitFor();
    t.equal((await h.app.db('users').where({ id: reviewer.user.id }).first<{ role: string }>('role')).role, 'admin');

    // An invitation to one workspace; an address the API refuses is shown at the field.
    await page.getByLabel('Email').fill('not-an-address');
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByText('Check the highlighted fields').waitFor();
    t.equal(await page.getByLabel('Email').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Email').fill('dana@client.example');
    await page.getByLabel('Role', { exact: true }).selectOption('client_viewer');
    await page.getByLabel('Contoso support').check();
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByText('Invitation sent to dana@client.example').waitFor();
    await page.getByRole('cell', { name: 'dana@client.example', exact: true }).waitFor();
    const sent = await h.link('dana@client.example', /./, '/invitations/accept');
    t.ok(sent, 'the invitation was emailed');
    await expectAccessible(t, page, 'team page');
    await screenshot(page, 'team-en');
    await page.getByRole('button', { name: 'Revoke the invitation of dana@client.example' }).click();
    await page.getByText('Invitation of dana@client.example revoked').waitFor();
    await page.getByText('No invitation here').waitFor();
    await page.getByLabel('Status').selectOption('revoked');
    await page.getByRole('cell', { name: 'dana@client.example', exact: true }).waitFor();

    // Removing a member, after confirming.
    await page.getByRole('button', { name: 'Remove Carl Client' }).click();
    await page
      .getByRole('dialog', { name: 'Remove Carl Client?' })
      .getByRole('button', { name: 'Remove them' })
      .click();
    await page.getByText('Carl Client removed').waitFor();
    t.equal(await page.getByText('Carl Client', { exact: true }).count(), 0, 'gone from the list');

    // An admin is offered no change on the owner.
    const admin = await signedInPage(h, await addMember(h.app, owner, { role: 'admin', name: 'Adam Admin' }), {
      width: 1440,
    });
    await admin.goto('/team');
    await admin.getByText('Olga Owner').waitFor();
    t.equal(
      await admin.getByRole('button', { name: 'Change role of Olga Owner' }).count(),
      0,
      'only owners change owners',
    );

    // An API token: the secret once, with a copy button; then only its last four characters.
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.base });
    await page.getByRole('link', { name: 'API tokens' }).click();
    await page.getByRole('heading', { name: 'API tokens', exact: true }).waitFor();
    await page.getByLabel('Token name').fill('CI deploy');
    await page.getByRole('button', { name: 'Create the token' }).click();
    const shown = page.getByRole('dialog', { name: 'Token CI deploy created' });
    const secret = await copyShownSecret(t, shown, { copy: 'Copy the token', copied: 'Token copied', prefix: /^pwt_/ });
    await expectAccessible(t, page, 'token shown once');
    await screenshot(page, 'token-created-en');
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('cell', { name: `…${secret.slice(-4)}` }).waitFor();
    t.notMatch(await page.locator('body').innerText(), secret, 'afterwards the secret is nowhere on the page');
    const works = await h.app.server.inject({
      method: 'GET',
      url: '/v1/auth/me',
      headers: { authorization: `Bearer ${secret}` },
    });
    t.equal(works.statusCode, 200, 'the copied token works');
    await page.getByRole('button', { name: 'Revoke CI deploy' }).click();
    await page.getByRole('dialog', { name: 'Revoke CI deploy?' }).getByRole('button', { name: 'Revoke it' }).click();
    await page.getByText('No token yet').waitFor();
    const revoked = await h.app.server.inject({
      method: 'GET',
      url: '/v1/auth/me',
      headers: { authorization: `Bearer ${secret}` },
    });
    t.equal(revoked.statusCode, 401, 'a revoked token stops working');
  });

  t.test('una revisora crea un token API sul telefono, in italiano', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Bottega', locale: 'it' });
    const ws = await insertWorkspace(h.app, owner.organization.id, { name: 'Bottega' });
    const reviewer = await addMember(h.app, owner, { role: 'reviewer', name: 'Rita Revisora', workspaceIds: [ws.id] });
    await h.app.db('users').where({ id: reviewer.user.id }).update({ locale: 'it' });
    const page = await signedInPage(h, reviewer, { width: 375, locale: 'it', colorScheme: 'dark' });
    await page.goto('/settings/tokens');
    await page.getByRole('heading', { name: 'Token API', exact: true }).waitFor();
    t.equal(await page.getByRole('link', { name: 'Spazi di lavoro' }).count(), 0, 'no workspaces page for a reviewer');
    const roles = await page.getByLabel('Ruolo', { exact: true }).locator('option').allTextContents();
    t.same(roles, ['Revisore', 'Cliente (sola lettura)'], "a token at most of the reviewer's own role");
    await page.getByLabel('Nome del token').fill('Script notturno');
    await page.getByRole('button', { name: 'Crea il token' }).click();
    const shown = page.getByRole('dialog', { name: 'Token Script notturno creato' });
    await shown.getByText('Copialo ora').waitFor();
    const secret = (await shown.locator('code').textContent())!;
    await expectAccessible(t, page, 'token mostrato una volta (375 px, scuro)');
    await screenshot(page, 'token-created-it-dark-375');
    await shown.getByRole('button', { name: "L'ho copiato" }).click();
    await page.getByRole('cell', { name: `…${secret.slice(-4)}` }).waitFor();
    t.ok(await fitsWidth(page), 'the tokens page fits a phone (the table scrolls inside)');
    await page.goto('/team');
    await page.getByRole('heading', { name: 'Membri' }).waitFor();
    t.equal(
      await page.getByRole('heading', { name: 'Inviti' }).count(),
      0,
      'a reviewer reads members, sends no invitation',
    );
    t.equal(await page.getByRole('button', { name: /^Rimuovi/ }).count(), 0, 'and removes nobody');
    await expectAccessible(t, page, 'team (revisore)');
  });
}
