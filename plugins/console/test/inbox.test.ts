import t from 'tap';
import { addMember, onPlan, signUp } from '../../../test/helpers/accounts.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import { SECRET, call, deliverOne, eml, fixture, inboundLog, newWorkspace, uid } from '../../inbox/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the inbox settings: an owner switches the channel, records the support address and
// tests the forwarding (the second test within a minute counts down; the first comes back and is
// verified live), adds a sending domain (its DNS records copied, verified live once published),
// sets the sender, and lets a quarantined email through. Then an admin reads it in Italian.
if (browserAvailable(t)) {
  const dns = await startDns();
  t.teardown(() => dns.close());
  const h = await startConsole(t, {
    adapters: { options: { 'mail-outbox': { webhookSecret: SECRET } } },
    // Every read of a domain looks DNS up again, so the page's polling shows a change at once.
    plugins: { inbox: { options: { dnsServers: [dns.server], dnsTimeoutMs: 1000, domainRefreshSeconds: 0 } } },
  });

  t.test(
    'an owner sets up the inbox: channel, forwarding test, a verified sending domain, a released email',
    async (t) => {
      const owner = await signUp(h.app, { orgName: 'Acme', name: 'Olga Owner' });
      await onPlan(h.app, owner.organization.id, 'growth'); // custom domains
      const ws = await newWorkspace(h.app, owner, 'Shop');
      const inbound: string = ws.inbound_address;
      const channel = async () => (await call(h.app, owner, 'GET', `/v1/channels/${ws.id}`)).body;
      t.equal((await deliverOne(h.app, fixture('spam-lottery', { to: inbound }), inbound)).status, 'quarantined');
      await deliverOne(h.app, eml({ to: inbound, subject: 'Where is my order?' }), inbound);
      // Then enough no-reply mail that the quarantined email is on the log's second page (25 a page).
      for (let i = 0; i < 24; i++) await deliverOne(h.app, fixture('no-reply-sender', { to: inbound }), inbound);

      // An admin who reads Italian opens the page first (a window loaded once: the test never reloads it).
      const admin = await addMember(h.app, owner, { role: 'admin', name: 'Ada Admin' });
      t.equal((await call(h.app, admin, 'PATCH', '/v1/me', { locale: 'it' })).status, 200);
      const it = await signedInPage(h, admin, { width: 1440, locale: 'it', colorScheme: 'dark' });
      it.setDefaultTimeout(20_000);
      await it.goto('/tickets');
      await it.getByRole('link', { name: 'Casella email', exact: true }).click();
      await it.getByRole('heading', { name: 'Impostazioni della casella' }).waitFor();
      await it
        .getByText('Ancora nessuna email qui')
        .or(it.getByRole('region', { name: 'Registro delle email ricevute' }))
        .first()
        .waitFor();

      const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
      await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.base });
      page.setDefaultTimeout(20_000);
      await page.goto('/tickets');
      await page.getByRole('link', { name: 'Inbox', exact: true }).click();
      await page.getByRole('heading', { name: 'Inbox settings' }).waitFor();

      // The channel: its address copied, switched off and on again.
      await page.getByRole('button', { name: 'Copy the inbound address' }).click();
      await page.getByText('Copied to the clipboard').first().waitFor();
      t.equal(await page.evaluate(() => navigator.clipboard.readText()), inbound, 'the inbound address is copied');
      await page.getByLabel('Receive email (new emails open tickets)', { exact: true }).uncheck();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Switched off', { exact: true }).waitFor();
      t.equal((await channel()).enabled, false, 'the channel is off');
      await page.getByLabel('Receive email (new emails open tickets)', { exact: true }).check();
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Receiving', { exact: true }).waitFor();
      t.equal((await channel()).enabled, true, 'and on again');

      // Forwarding: recorded, tested; a second test within the minute counts down.
      await page.getByLabel('Your support address', { exact: true }).fill('support.acme@gmail.com');
      await page.getByLabel('Where it is hosted', { exact: true }).selectOption('mail_a');
      await page.getByRole('button', { name: 'Save the support address' }).click();
      await page.getByText('Not verified yet').waitFor();
      await page.getByRole('button', { name: 'Send a test email' }).click();
      await page.getByText('Test email sent to support.acme@gmail.com').waitFor();
      await page.getByText('Waiting for the test email to come back through the forwarding…').waitFor();
      await page.getByRole('button', { name: 'Send a test email' }).click();
      const countdown = page.getByText(/you can send the next one in \d+ seconds?\./);
      await countdown.waitFor();
      const seconds = Number(/in (\d+) second/.exec((await countdown.textContent())!)![1]);
      t.ok(seconds >= 1 && seconds <= 60, `the countdown starts from Retry-After (${seconds} s)`);
      t.ok(await page.getByRole('button', { name: 'Send a test email' }).isDisabled(), 'no test until it ends');
      if (seconds > 2) await page.getByText(new RegExp(`in ${seconds - 1} seconds?\\.`)).waitFor();
      await screenshot(page, 'inbox-forwarding-countdown-en');

      // Gmail forwards the test as it is; the page, polling, shows it verified. (The page said the test was sent.)
      const code = (await channel()).forwarding!.test!.code;
      const mail = await h.outbox.waitFor(
        (m) => m.to.includes('support.acme@gmail.com') && m.subject.includes(code),
        10_000,
      );
      const forwarded = Buffer.concat([
        Buffer.from(`X-Forwarded-To: ${inbound}\r\nX-Forwarded-For: support.acme@gmail.com ${inbound}\r\n`),
        mail.raw,
      ]);
      t.match(await deliverOne(h.app, forwarded, inbound), { status: 'processed', reason: 'forwarding_test' });
      await page.getByText('Verified', { exact: true }).first().waitFor();
      t.equal(
        await page.getByText('Waiting for the test email to come back through the forwarding…').count(),
        0,
        'no longer waiting',
      );

      // A sending domain: its records to publish, copied, then verified live once they are published.
      const sendingName = `mail.acme-${uid()}.test`;
      await page.getByLabel('Sending domain name', { exact: true }).fill(sendingName);
      await page.getByRole('button', { name: 'Add the domain' }).first().click();
      const records = page.getByRole('region', { name: `DNS records of ${sendingName}` });
      await records.waitFor();
      await page.getByRole('status', { name: `${sendingName}: Waiting for DNS` }).waitFor();
      const domain = (await call(h.app, owner, 'GET', `/v1/domains/${ws.id}/sending`)).body;
      const dkim = domain.records.find((r) => r.record === 'dkim')!;
      await records.getByRole('button', { name: 'Copy the value of DKIM' }).click();
      await page.waitForFunction((v) => navigator.clipboard.readText().then((c) => c === v), dkim.value);
      t.pass('the DKIM value is copied');
      await expectAccessible(t, page, 'inbox settings: a domain waiting for DNS');
      await screenshot(page, 'inbox-domain-pending-en');
      for (const r of domain.records) {
        if (r.type === 'TXT') dns.txt.set(r.name, [r.value]);
        if (r.type === 'CNAME') dns.cname.set(r.name, r.value);
      }
      await page.getByRole('status', { name: `${sendingName}: Verified` }).waitFor();
      t.pass('the domain shows verified without a click');

      // The sender at the domain: replies now leave from it.
      await page.getByLabel('From address', { exact: true }).fill(`help@${sendingName}`);
      await page.getByLabel('From name', { exact: true }).fill('Acme Support');
      await page.getByRole('button', { name: 'Save the sender' }).click();
      await page.getByText('From your domain').waitFor();
      t.match((await channel()).sending, { kind: 'custom', from: `Acme Support <help@${sendingName}>` });

      // The inbound log: the quarantined email, let through after confirming, opens a ticket.
      const log = page.getByRole('region', { name: 'Inbound emails' });
      await log.getByRole('cell', { name: 'Where is my order?' }).waitFor();
      t.equal(
        await log.getByRole('button', { name: /^Release “/ }).count(),
        0,
        'the quarantined email is not on the first page',
      );
      await page.getByRole('button', { name: 'Load more' }).click();
      await log.getByRole('button', { name: /^Release “CONGRATULATIONS/ }).click();
      const ask = page.getByRole('dialog', { name: 'Let this email through?' });
      await ask.getByRole('button', { name: 'Release the email' }).click();
      await page.getByText('Released: a new ticket was opened').waitFor();
      await log.getByText('Released', { exact: true }).waitFor();
      const [released] = await inboundLog(h.app, owner, ws.id, '?status=released');
      t.match(
        released,
        { subject: 'CONGRATULATIONS YOU HAVE WON THE LOTTERY', ticket_id: /^tkt_/ },
        'released into a ticket',
      );
      await page.getByLabel('Show', { exact: true }).selectOption('quarantined');
      await page.getByText('No email here yet').waitFor();
      await expectAccessible(t, page, 'inbox settings');
      await screenshot(page, 'inbox-en');

      // The admin's Italian window, still open from the start: back to the inbox settings.
      await it.getByRole('link', { name: 'Ticket', exact: true }).click();
      await it.getByRole('link', { name: 'Casella email', exact: true }).click();
      await it.getByRole('heading', { name: 'Impostazioni della casella' }).waitFor();
      await it.getByRole('heading', { name: 'Inoltro dal tuo indirizzo di assistenza' }).waitFor();
      await it.getByRole('status', { name: `${sendingName}: Verificato` }).waitFor();
      await it
        .getByRole('region', { name: `Record DNS di ${sendingName}` })
        .getByRole('button', { name: 'Copia il valore di DKIM' })
        .waitFor();
      await it
        .getByRole('region', { name: 'Registro delle email ricevute' })
        .getByText('Da un indirizzo no-reply')
        .first()
        .waitFor();
      await expectAccessible(t, it, 'impostazioni della casella');
      await screenshot(it, 'inbox-it-dark');
    },
  );
}
