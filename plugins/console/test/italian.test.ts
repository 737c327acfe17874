import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import type { Schema } from '../../../test/helpers/api-types.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';

// The same walk in Italian, on a phone in the dark: the texts, the API's refusal of a forbidden
// agent choice in the person's language; then a reviewer who accepts an invitation sees no
// owner-only navigation.
if (browserAvailable(t)) {
  const h = await startConsole(t);
  const email = 'giulia@negozio.example';

  t.test("una nuova titolare si registra in italiano, conferma l'indirizzo e configura l'agente", async (t) => {
    const { page } = await h.open({ width: 375, locale: 'it', colorScheme: 'dark' });
    await page.goto('/signup');
    await page.getByRole('heading', { name: 'Crea il tuo account' }).waitFor();
    t.equal(await page.locator('html').getAttribute('lang'), 'it', "the browser's language before any profile");
    await expectAccessible(t, page, 'registrazione (375 px, scuro)');
    await screenshot(page, 'sign-up-it-dark-375');
    await page.getByLabel('Il tuo nome').fill('Giulia Rossi');
    await page.getByLabel('Email di lavoro').fill(email);
    await page.getByLabel('Password').fill('una password lunga abbastanza');
    await page.getByLabel("Nome dell'azienda o del progetto").fill('Negozio');
    await page.getByLabel("Accetto i termini di servizio e l'informativa sulla privacy").check();
    await page.getByRole('button', { name: "Crea l'account" }).click();
    await page.getByRole('heading', { name: 'Il tuo primo spazio di lavoro' }).waitFor();

    await page.goto(await h.link(email, /./, '/verify-email'));
    await page.getByText(`${email} è confermato.`).waitFor();
    await page.getByRole('link', { name: 'Continua' }).click();

    await page.getByLabel('Nome dello spazio di lavoro').fill('Negozio');
    await page.getByRole('button', { name: 'Crea lo spazio di lavoro' }).click();
    await page.getByRole('heading', { name: 'Repository', exact: true }).waitFor();
    await expectAccessible(t, page, 'configurazione: repository');
    await screenshot(page, 'onboarding-it-dark-375');

    // Without a repository the agent step is not available yet; the steps say so.
    t.equal(
      await page.getByRole('button', { name: 'Agente' }).isDisabled(),
      true,
      'the agent step waits for the repository',
    );

    // The language can be switched from the account menu, and the profile keeps it.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('button', { name: 'Account: Giulia Rossi' }).click();
    await page.getByLabel('Lingua').first().selectOption('en');
    await page.getByRole('heading', { name: 'Set up Patchwell' }).waitFor();
    const locale = async () => (await h.app.db('users').where({ email }).first<{ locale: string }>('locale')).locale;
    await waitFor(async () => (await locale()) === 'en', 'the profile to keep the language', 10_000);
    t.pass('the choice is saved to the profile');
  });

  t.test('an invited reviewer joins from the emailed link and is offered no owner-only page', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Officina', locale: 'it' });
    const ws = await h.app.server.inject({
      method: 'POST',
      url: '/v1/workspaces',
      payload: { name: 'Officina' },
      ...owner.auth,
    });
    const invite = await h.app.server.inject({
      method: 'POST',
      url: '/v1/invitations',
      payload: {
        email: 'rev@officina.example',
        role: 'reviewer',
        workspace_ids: [(JSON.parse(ws.payload) as Schema<'Workspace'>).id],
      },
      ...owner.auth,
    });
    t.equal(invite.statusCode, 201, invite.payload);
    const { page } = await h.open({ width: 1440, locale: 'it', colorScheme: 'light' });
    await page.goto(await h.link('rev@officina.example', /./, '/invitations/accept'));
    await page.getByRole('heading', { name: 'Entra in Officina' }).waitFor();
    await expectAccessible(t, page, 'invito');
    await screenshot(page, 'invitation-it-light');
    await page.getByLabel('Il tuo nome').fill('Rita Revisora');
    await page.getByLabel('Password').fill("un'altra password lunga");
    await page.getByRole('button', { name: 'Accetta ed entra' }).click();
    await page.getByRole('heading', { name: 'Ticket', exact: true }).waitFor();
    await page.getByText('Ancora nessun ticket').waitFor();
    await expectAccessible(t, page, 'ticket (revisore)');
    t.equal(await page.getByRole('link', { name: 'Configurazione' }).count(), 0, 'no onboarding for a reviewer');
    await page.goto('/onboarding');
    await page.getByRole('heading', { name: 'Non per il tuo ruolo' }).waitFor();
    t.equal(
      await page.getByRole('button', { name: 'Collega il code host' }).count(),
      0,
      'a reviewer is offered no owner-only action',
    );
    // An API error is shown as the API states it, never as a blank page.
    await page.goto('/invitations/accept?token=pwi_not-a-real-token');
    await page.getByRole('alert').waitFor();
    t.match(await page.getByRole('alert').textContent(), /invalid_token|not_found/);
    await expectAccessible(t, page, "errore dell'API");
  });
}
