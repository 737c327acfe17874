import t from 'tap';
import { onPlan, signUp } from '../../../test/helpers/accounts.js';
import { startDns } from '../../../test/helpers/dns-server.js';
import { image } from '../../brand/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

// Issue 27, the brand section: an owner makes the first brand profile from the nav and edits it
// beside a live preview of the status page, the widget and an email (a yellow too light for white
// text is shown next to the darker shade in use; the language and a widget text change the preview
// as they are typed); uploads a logo after a wrong type, a file over 512 KB and a mislabelled image
// are refused with the reason; puts status pages on the brand's own domain, whose records are
// checked on a DNS server the test runs (found by the page's own re-check once published); gives a
// workspace the profile, and deletes another one.
if (browserAvailable(t)) {
  const dns = await startDns();
  t.teardown(() => dns.close());
  const h = await startConsole(t, {
    plugins: {
      brand: { options: { dnsServers: [dns.server], dnsTimeoutMs: 1000, statusCnameTarget: 'status.patchwell.test' } },
    },
  });

  t.test('an owner brands the customer surfaces and sees them before saving', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Acme', name: 'Olga Owner' });
    await onPlan(h.app, owner.organization.id, 'growth'); // brand profiles and custom domains
    const ws = await h.app.server.inject({
      method: 'POST',
      url: '/v1/workspaces',
      payload: { name: 'Acme support' },
      ...owner.auth,
    });
    t.equal(ws.statusCode, 201, ws.payload);
    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.base });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Brand', exact: true }).click();
    await page.getByRole('heading', { name: 'Brand', exact: true }).waitFor();
    await page.getByText('No profile yet').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Acme');
    await page.getByRole('button', { name: 'Create the profile' }).click();
    await page.getByRole('heading', { name: 'Acme', exact: true, level: 1 }).waitFor();

    // The color: too light for white text, so the shade in use is shown beside it; the preview follows the form.
    const preview = page.getByRole('region', { name: 'Preview' });
    await preview.getByText('Report a problem').waitFor();
    await page.getByLabel('Primary color', { exact: true }).fill('#ffd700');
    await page.getByText('Chosen: #ffd700').waitFor();
    await page.getByText(/White text on the chosen color has a contrast of 1\.\d:1/).waitFor();
    await page.getByLabel('Language of customer texts').selectOption('it');
    await preview.getByText('Segnala un problema').waitFor();
    await page.getByText('Widget texts').click();
    await page.getByLabel('Send button').fill('Manda');
    await preview.getByText('Manda', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Profile saved').waitFor();
    const row = await h.app
      .db<{ id: string; org_id: string }>('brand_profiles')
      .where({ org_id: owner.organization.id })
      .first();
    if (!row) throw new Error('the profile is stored');
    const got = await h.app.server.inject({ url: `/v1/brand/profiles/${row.id}`, ...owner.auth });
    const answer = JSON.parse(got.payload) as { primary_color_effective: string; color_adjusted: boolean };
    t.ok(answer.color_adjusted, 'the API darkened the color');
    await page.getByText(`In use: ${answer.primary_color_effective}`).waitFor();
    const header = await preview
      .locator('.pv-head')
      .first()
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    const [r, g, b] = [1, 3, 5].map((i) => parseInt(answer.primary_color_effective.slice(i, i + 2), 16));
    t.equal(header, `rgb(${r}, ${g}, ${b})`, 'the preview uses the color in use');

    // The logo: limits checked before sending, the API's refusal shown, then a PNG.
    const logo = page.getByRole('region', { name: 'Logo' });
    const file = page.getByLabel('Logo file');
    await file.setInputFiles({ name: 'python.gif', mimeType: 'image/gif', buffer: image('python.gif') });
    await logo.getByText('python.gif is not a PNG, JPEG or WebP image.').waitFor();
    await file.setInputFiles({ name: 'huge.png', mimeType: 'image/png', buffer: Buffer.alloc(600 * 1024, 1) });
    await logo.getByText('huge.png is 600 KB; the limit is 512 KB.').waitFor();
    await file.setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: image('python.jpg') });
    await logo.getByText('content_type_mismatch', { exact: false }).waitFor();
    await file.setInputFiles({ name: 'python.png', mimeType: 'image/png', buffer: image('python.png') });
    await logo.getByText(/^PNG, 16×16 px/).waitFor();
    await preview.getByRole('img', { name: 'Acme' }).first().waitFor();
    await expectAccessible(t, page, 'brand profile with its preview');
    await screenshot(page, 'brand-profile-en');

    // Status pages on the brand's own domain: the two records, checked before and after they exist.
    const status = page.getByRole('region', { name: 'Status page domain' });
    await status.getByLabel('Domain', { exact: true }).fill('status.acme.test');
    await status.getByRole('button', { name: 'Use this domain' }).click();
    await status.getByText('Waiting for verification').waitFor();
    const txtName = (await status.getByLabel('TXT record name', { exact: true }).textContent())!;
    const txtValue = (await status.getByLabel('TXT record value', { exact: true }).textContent())!;
    t.equal(await status.getByLabel('CNAME record value', { exact: true }).textContent(), 'status.patchwell.test');
    await status.getByRole('button', { name: 'Copy the TXT record value' }).click();
    t.equal(await page.evaluate(() => navigator.clipboard.readText()), txtValue, 'the TXT value is copied');
    await status.getByRole('button', { name: 'Verify now' }).click();
    await status.getByText('The CNAME record is not there yet').waitFor();
    await status.getByText('Checked again every 30 seconds while this page is open.').waitFor();
    // Published now: the page's own re-check (every 30 s) finds them, with no click and no reload.
    dns.cname.set('status.acme.test', 'status.patchwell.test');
    dns.txt.set(txtName, [txtValue]);
    await status.getByText(/^Verified on /).waitFor({ timeout: 45_000 });
    await expectAccessible(t, page, 'status domain verified');

    // The workspace shows this profile.
    await page.getByRole('link', { name: 'All profiles' }).click();
    await page.getByRole('heading', { name: 'Brand profiles' }).waitFor();
    await page.getByLabel('Acme support').selectOption({ label: 'Acme' });
    await page.getByText('Acme support now shows this profile').waitFor();
    const assigned = await h.app
      .db<{ org_id: string; brand_profile_id: string | null }>('workspaces')
      .where({ org_id: owner.organization.id })
      .first();
    t.equal(assigned?.brand_profile_id, row.id, 'the workspace uses the profile');
    await expectAccessible(t, page, 'brand overview');
    await screenshot(page, 'brand-overview-en');

    // A second profile, deleted after confirming.
    await page.getByLabel('Name', { exact: true }).fill('Beta');
    await page.getByRole('button', { name: 'Create the profile' }).click();
    await page.getByRole('heading', { name: 'Beta', exact: true, level: 1 }).waitFor();
    await page.getByRole('button', { name: 'Delete the profile' }).click();
    await page.getByRole('dialog', { name: 'Delete Beta?' }).getByRole('button', { name: 'Delete it' }).click();
    await page.getByText('Profile Beta deleted').waitFor();
    await page.getByRole('heading', { name: 'Brand profiles' }).waitFor();
    t.equal(await page.getByRole('link', { name: 'Beta' }).count(), 0, 'gone from the list');
  });
}
