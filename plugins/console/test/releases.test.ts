import t from 'tap';
import { randomBytes } from 'node:crypto';
import { signUp } from '../../../test/helpers/accounts.js';
import { createWorkspace } from '../../codehost/test/helpers.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { fitsWidth, signedInPage } from './tickets-walk.js';

// Issue 27, releases: in Italian on a phone (dark), an owner finds a batched release that stopped at
// the tag, reads where and why, sets the version and resumes it from that step (audited, the version
// kept); the list filters by status.
if (browserAvailable(t)) {
  // The fixes plugin serves the releases (off by default under the test helpers).
  const h = await startConsole(t, { plugins: { fixes: { enabled: true } } });

  t.test('a stopped release is read and resumed with a version, in Italian on a phone', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Umbrella', name: 'Ugo Owner', locale: 'it' });
    const ws = await createWorkspace(h.app, owner, 'Negozio');
    const id = `rel_${randomBytes(8).toString('hex')}`;
    const now = new Date();
    await h.app.db('fix_releases').insert({
      id,
      org_id: owner.organization.id,
      workspace_id: ws.id,
      kind: 'batched',
      status: 'failed',
      failed_step: 'tagging',
      strategy: 'manual',
      head_sha: 'c'.repeat(40),
      approved_sha: 'c'.repeat(40),
      merge_sha: 'c'.repeat(40),
      error_code: 'tag_failed',
      error_detail: 'The code host refused the tag',
      created_at: now,
      updated_at: now,
    });

    const page = await signedInPage(h, owner, { width: 375, locale: 'it', colorScheme: 'dark' });
    page.setDefaultTimeout(20_000);
    await page.goto('/releases');
    await page.getByRole('heading', { name: 'Rilasci', exact: true }).waitFor();
    await page.getByRole('link', { name: 'Ancora senza versione' }).waitFor();
    // Filtering by a status it is not in leaves nothing.
    await page.getByLabel('Stato').selectOption('released');
    await page.getByRole('heading', { name: 'Ancora nessun rilascio' }).waitFor();
    await page.getByLabel('Stato').selectOption('failed');
    await page.getByRole('link', { name: 'Ancora senza versione' }).click();

    await page.getByText('Fermo a: Etichettatura').waitFor();
    await page.getByText('The code host refused the tag').waitFor();
    t.ok(await fitsWidth(page), 'the release page fits a phone');
    await expectAccessible(t, page, 'failed release (it, phone, dark)');
    await screenshot(page, 'release-failed-it-375-dark');

    await page.getByLabel('Versione (facoltativa)').fill('1.4.0');
    await page.getByRole('button', { name: 'Riprova da lì' }).click();
    await page.getByText('Il rilascio riprende').waitFor();
    const row = (await h.app.db('fix_releases').where({ id }).first()) as { version: string | null };
    t.equal(row.version, '1.4.0', 'the version given is kept');
    const audit = (await h.app
      .db('audit_entries')
      .where({ org_id: owner.organization.id, action: 'release.retried' })
      .first()) as { target_id: string } | undefined;
    t.equal(audit?.target_id, id, 'the retry is audited');
  });
}
