import { readFile } from 'node:fs/promises';
import t from 'tap';
import { addMember, onPlan, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import type { App } from '../../../core/kernel/app.js';
import { HttpsPeer, selfSigned, verifySignature } from '../../audit/test/helpers/peers.js';
import { browserAvailable, copyShownSecret, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the audit section: an owner on the Enterprise plan reads the audit log from the nav,
// narrows it by action and by day, opens an entry's details and downloads the matches; then sets
// up the stream to an HTTPS collector (a private address refused at its field), copies the signing
// secret shown once, sends a signed test batch and sees its result, rotates the secret and deletes
// the stream. On a plan without streaming an admin is told so; a reviewer's nav has neither section.
const tls = selfSigned();

async function call(
  app: App,
  who: SignedUp,
  method: 'POST',
  url: string,
  payload: Record<string, unknown>,
): Promise<void> {
  const res = await app.server.inject({ method, url, payload, ...who.auth });
  if (res.statusCode >= 300) throw new Error(`${url}: ${res.statusCode} ${res.payload}`);
}

if (browserAvailable(t)) {
  const h = await startConsole(t, {
    security: { allowLoopbackFetch: true },
    plugins: { audit: { options: { stream: { trustedCa: tls.cert, timeoutMs: 3000 } } } },
  });
  const peer = new HttpsPeer(tls);
  const collector = await peer.start();
  t.teardown(() => peer.stop());

  t.test('an owner filters the audit log, reads an entry and streams the log to a collector', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Contoso', name: 'Olga Owner' });
    await h.app.db('organizations').where({ id: owner.organization.id }).update({ plan: 'enterprise' });
    await call(h.app, owner, 'POST', '/v1/workspaces', { name: 'Contoso support' });
    await call(h.app, owner, 'POST', '/v1/invitations', {
      email: 'dana@client.example',
      role: 'admin',
      workspace_ids: [],
    });
    await call(h.app, owner, 'POST', '/v1/invitations', {
      email: 'eve@client.example',
      role: 'admin',
      workspace_ids: [],
    });

    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.base });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Audit log', exact: true }).click();
    await page.getByRole('heading', { name: 'Audit log', exact: true }).waitFor();
    const entries = page.getByRole('region', { name: 'Entries' });
    await entries.getByText('workspace.created').waitFor();
    t.equal(await entries.getByText('invitation.created').count(), 2, 'both invitations are listed');

    // Narrowed to the invitations (a prefix ending with a dot), then to a day with none.
    await page.getByLabel('Action', { exact: true }).fill('invitation.');
    await page.getByRole('button', { name: 'Apply the filters' }).click();
    await entries.getByText('workspace.created').waitFor({ state: 'detached' });
    // The old rows go while the filtered page loads: wait for its rows, then count them.
    await entries.getByText('invitation.created').nth(1).waitFor();
    t.equal(await entries.getByText('invitation.created').count(), 2, 'the invitations stay');
    await page.getByLabel('Until').fill('2020-01-31');
    await page.getByRole('button', { name: 'Apply the filters' }).click();
    await page.getByText('No entry matches these filters').waitFor();
    await page.getByLabel('Until').fill('');
    await page.getByRole('button', { name: 'Apply the filters' }).click();

    // An entry's details: who, what, and what the API recorded about it.
    await page
      .getByRole('button', { name: /^Details of invitation\.created/ })
      .first()
      .click();
    const details = page.getByRole('dialog', { name: 'Entry invitation.created' });
    await details.getByText('eve@client.example').waitFor();
    await details.getByText(owner.user.email).waitFor();
    await expectAccessible(t, page, 'audit entry details');
    await details.getByRole('button', { name: 'Close' }).click();

    // The matching entries as a file (the Enterprise plan includes the export).
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download as CSV' }).click(),
    ]);
    const csv = await readFile(await download.path(), 'utf8');
    t.match(csv, /invitation\.created/, 'the file holds the filtered entries');
    t.notMatch(csv, /workspace\.created/, 'and only them');
    await expectAccessible(t, page, 'audit log');
    await screenshot(page, 'audit-log-en');

    // The stream: a private address is refused at its field, then the collector.
    await page.getByRole('link', { name: 'Stream to a log system' }).click();
    await page.getByRole('heading', { name: 'Audit log stream' }).waitFor();
    await page.getByText('No stream yet').waitFor();
    await page.getByLabel('Collector URL').fill('https://10.1.2.3/in');
    await page.getByRole('button', { name: 'Create the stream' }).click();
    await page.getByText('This address is on a private or reserved network').waitFor();
    t.equal(await page.getByLabel('Collector URL').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Collector URL').fill(collector);
    await page.getByRole('button', { name: 'Create the stream' }).click();
    const shown = page.getByRole('dialog', { name: "The stream's signing secret" });
    const secret = await copyShownSecret(t, shown, {
      copy: 'Copy the secret',
      copied: 'Secret copied',
      prefix: /^pwss_/,
    });
    await expectAccessible(t, page, 'stream secret shown once');
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    const state = page.getByRole('region', { name: 'Delivery' });
    await state.getByText(`…${secret.slice(-4)}`).waitFor();
    await state.getByText('Active', { exact: true }).waitFor();
    t.notMatch(await page.locator('body').innerText(), secret, 'afterwards only its last four characters');

    // A signed test batch, and what the collector answered.
    await page.getByRole('button', { name: 'Send a test batch' }).click();
    await page.getByText('The test batch was delivered').waitFor();
    await page.getByText('The destination answered HTTP 204', { exact: false }).waitFor();
    const test = peer.batches.find((b) => b.body.test);
    t.ok(test, 'the collector received the test batch');
    // The header the page names (X-Patchwell-Signature), as the collector received it.
    await state.getByText('X-Patchwell-Signature').waitFor();
    t.ok(
      verifySignature(String(test!.headers['x-patchwell-signature']), test!.raw, secret),
      'signed with the secret the page showed',
    );
    await expectAccessible(t, page, 'audit stream');
    await screenshot(page, 'audit-stream-en');

    // Rotating: a new secret, once; afterwards its last four characters.
    await page.getByRole('button', { name: 'Rotate the secret' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate the signing secret?' })
      .getByRole('button', { name: 'Rotate it' })
      .click();
    await shown.waitFor();
    const rotated = (await shown.locator('code').textContent())!;
    t.not(rotated, secret, 'a new secret');
    await shown.getByRole('button', { name: 'I have copied it' }).click();
    await state.getByText(`…${rotated.slice(-4)}`).waitFor();

    // Deleting the stream, after confirming: the log itself stays.
    await page.getByRole('button', { name: 'Delete the stream' }).click();
    await page.getByRole('dialog', { name: 'Delete the stream?' }).getByRole('button', { name: 'Delete it' }).click();
    await page.getByText('No stream yet').waitFor();
    const left = await h.app.db('audit_streams').where({ org_id: owner.organization.id }).count('* as n').first();
    t.equal(Number(left!.n), 0, 'the stream is gone');
  });

  t.test('a plan without the stream is told so; a reviewer has no audit log or privacy', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Initech', name: 'Olga Owner' });
    await onPlan(h.app, owner.organization.id, 'growth');
    const admin = await addMember(h.app, owner, { role: 'admin', name: 'Adam Admin' });
    const page = await signedInPage(h, admin, { width: 1440 });
    await page.goto('/audit/stream');
    await page.getByLabel('Collector URL').fill(collector);
    await page.getByRole('button', { name: 'Create the stream' }).click();
    await page.getByRole('alert').getByText('Your plan does not include this').waitFor();
    await page.getByText('No stream yet').waitFor();
    await page.context().close();

    const reviewer = await signedInPage(h, await addMember(h.app, owner, { role: 'reviewer', name: 'Rick Reviewer' }), {
      width: 1440,
    });
    await reviewer.goto('/tickets');
    await reviewer.getByRole('link', { name: 'Team', exact: true }).waitFor();
    t.equal(await reviewer.getByRole('link', { name: 'Audit log' }).count(), 0, "no audit log in a reviewer's nav");
    t.equal(await reviewer.getByRole('link', { name: 'Privacy' }).count(), 0, "no privacy in a reviewer's nav");
  });
}
