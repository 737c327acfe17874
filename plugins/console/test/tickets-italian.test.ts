import t from 'tap';
import { browserAvailable, expectAccessible, screenshot } from './browser.js';
import { customerWrites, fitsWidth, openShop, signedInPage, startTicketsConsole } from './tickets-walk.js';

// The same walk in Italian, on a 375 px phone in the dark: the inbox and the ticket page fit the
// screen, and the owner reads the diagnosis, sends the edited draft, reads the diff, approves at
// the shown commit and sees the status page say resolved, all by clicking.
if (browserAvailable(t)) {
  const h = await startTicketsConsole(t);

  t.test(
    "una titolare porta l'email di un cliente dalla posta in arrivo alla correzione rilasciata, dal telefono",
    async (t) => {
      const shop = await openShop(h, { locale: 'it', orgName: 'Negozio', name: 'Giulia Rossi' });
      await customerWrites(
        h,
        shop,
        'Il totale del carrello è sbagliato',
        'Il totale del carrello è sbagliato: cartTotal ignora la quantità. Errore 500 al pagamento.',
      );
      const page = await signedInPage(h, shop.owner, { width: 375, locale: 'it', colorScheme: 'dark' });

      await page.goto('/tickets');
      await page.getByRole('heading', { name: 'Ticket', exact: true }).waitFor();
      const row = page.getByRole('link', { name: 'Il totale del carrello è sbagliato' });
      await row.waitFor();
      t.ok(await fitsWidth(page), 'the inbox fits 375 px');
      await expectAccessible(t, page, 'posta in arrivo (375 px, scuro)');
      await screenshot(page, 'inbox-it-dark-375');
      await page.emulateMedia({ colorScheme: 'light' });
      await screenshot(page, 'inbox-it-light-375');
      await page.emulateMedia({ colorScheme: 'dark' });

      await row.click();
      await page.getByRole('heading', { name: 'Il totale del carrello è sbagliato', level: 1 }).waitFor();
      await page.getByRole('heading', { name: 'Diagnosi' }).waitFor();
      await page.getByText('È partita una correzione').waitFor();
      await page.getByRole('region', { name: 'Diagnosi' }).getByRole('link', { name: /\.js:/ }).first().waitFor();

      await page
        .getByLabel('Messaggio al cliente')
        .fill('Ciao Giulia, abbiamo trovato la causa: il totale ignora le quantità. La correzione è in arrivo.');
      await page.getByRole('button', { name: 'Invia al cliente' }).click();
      await page.getByText('Inviata al cliente.').waitFor();
      await page.getByRole('region', { name: 'Conversazione' }).getByText('La correzione è in arrivo.').waitFor();

      const approve = page.getByRole('button', { name: /^Approva al commit [0-9a-f]{7}$/ });
      await approve.waitFor({ timeout: 90_000 });
      await page.getByRole('button', { name: 'Mostra le modifiche' }).click();
      await page.getByRole('region', { name: 'Modifiche a cart.js' }).getByText('i.price * i.qty').waitFor();
      t.ok(await fitsWidth(page), 'the ticket page fits 375 px, the diff scrolls inside its box');
      await expectAccessible(t, page, 'pagina del ticket (375 px, scuro)');
      await screenshot(page, 'ticket-it-dark-375');
      await page.emulateMedia({ colorScheme: 'light' });
      await screenshot(page, 'ticket-it-light-375');

      const head = (await approve.textContent())!.replace('Approva al commit ', '').trim();
      await approve.click();
      await page
        .getByRole('dialog', { name: `Approva la correzione al commit ${head}` })
        .getByRole('button', { name: `Approva il commit ${head}` })
        .click();
      await page.getByText('Il cliente vede: Risolta').waitFor({ timeout: 60_000 });
      await page.getByRole('region', { name: 'Rilascio' }).getByText('Rilasciato', { exact: true }).waitFor();

      const [status] = await Promise.all([
        page.context().waitForEvent('page'),
        page.getByRole('link', { name: 'Apri la pagina di stato' }).click(),
      ]);
      await status.getByText('Risolta', { exact: true }).first().waitFor();
      t.pass('the status page says resolved, in Italian');
    },
  );
}
