import t from 'tap';
import { onPlan, signUp } from '../../../test/helpers/accounts.js';
import { browserAvailable, expectAccessible, screenshot, startConsole } from './browser.js';
import { signedInPage } from './tickets-walk.js';

/** A workspace as stored (workspaces), the columns this test reads. */
interface WorkspaceRow {
  id: string;
  autonomy: string;
  /** numeric: a number or its text, as the driver answers it. */
  confidence_threshold: number | string;
  sla_first_response_minutes: number | null;
  /** JSON: parsed, or its text. */
  report_recipients: string[] | string | null;
  archived_at: Date | null;
}

// Issue 27, workspaces: an owner creates a workspace from the console (the plan's limit and a
// taken slug said where they belong), changes settings group by group (a field the API refuses
// shown at the field, a forbidden agent choice explained), and archives it after confirming.
if (browserAvailable(t)) {
  const h = await startConsole(t);

  t.test('an owner creates a workspace, changes its settings and archives it', async (t) => {
    const owner = await signUp(h.app, { orgName: 'Northwind', name: 'Nora North' });
    const page = await signedInPage(h, owner, { width: 1440, locale: 'en', colorScheme: 'light' });
    await page.goto('/tickets');
    await page.getByRole('link', { name: 'Workspaces', exact: true }).click();
    await page.getByRole('heading', { name: 'Workspaces', exact: true }).waitFor();
    await page.getByText('No workspace yet').waitFor();

    await page.getByLabel('Workspace name').fill('Help desk');
    await page.getByLabel('Slug (optional)').fill('help-desk');
    await page.getByLabel('Where fixes run').selectOption('managed');
    await page.getByRole('button', { name: 'Create the workspace' }).click();
    await page.getByRole('heading', { name: 'Workspace settings: Help desk' }).waitFor();
    const id = page.url().split('/workspaces/')[1];
    const storedWorkspace = async () => {
      const row = await h.app.db<WorkspaceRow>('workspaces').where({ id }).first();
      if (!row) throw new Error(`workspace ${id} is not stored`);
      return row;
    };
    t.match(
      await page
        .getByText(/@inbound\./)
        .first()
        .textContent(),
      /@inbound\./,
      'the mailbox address is shown under channels',
    );

    // The plan without a subscription includes one workspace: the API's 402 is said in words.
    await page.getByRole('link', { name: '← All workspaces' }).click();
    await page.getByRole('link', { name: 'Help desk' }).waitFor();
    await page.getByLabel('Workspace name').fill('Second desk');
    await page.getByRole('button', { name: 'Create the workspace' }).click();
    await page.getByText('Your plan does not allow more of these').waitFor();
    t.match(await page.getByRole('alert').textContent(), /plan_limit_reached/, "the API's code is shown with the text");
    // On a plan with room, a taken slug is shown at its field.
    await onPlan(h.app, owner.organization.id, 'growth');
    await page.getByLabel('Slug (optional)').fill('help-desk');
    await page.getByRole('button', { name: 'Create the workspace' }).click();
    await page.getByText(/slug "help-desk" is already used/).waitFor();
    t.equal(await page.getByLabel('Slug (optional)').getAttribute('aria-invalid'), 'true', 'the slug field is marked');
    await expectAccessible(t, page, 'workspaces list with a refused creation');
    await screenshot(page, 'workspaces-list-en');

    await page.getByRole('link', { name: 'Help desk' }).click();
    await page.getByRole('heading', { name: 'Workspace settings: Help desk' }).waitFor();

    // Autonomy and categories: autopilot for bugs and docs, a higher threshold.
    const autonomy = page.locator('#ws-autonomy');
    await autonomy.getByLabel('Autonomy', { exact: true }).selectOption('autopilot');
    await autonomy.getByLabel('Bugs').check();
    await autonomy.getByLabel('Documentation').check();
    await autonomy.getByLabel('Confidence threshold (0 to 1)').fill('0.8');
    await autonomy.getByRole('button', { name: 'Save: Autonomy and categories' }).click();
    await page.getByText('Autonomy and categories: saved').waitFor();
    const stored = await storedWorkspace();
    t.equal(stored.autonomy, 'autopilot');
    t.equal(Number(stored.confidence_threshold), 0.8);

    // Service levels: 0 minutes is refused by the API, at the field; 30 is kept.
    const slas = page.locator('#ws-slas');
    await slas.getByLabel('First response within (minutes)').fill('0');
    await slas.getByRole('button', { name: 'Save: Service levels' }).click();
    await slas.getByText('Check the highlighted fields').waitFor();
    t.equal(
      await slas.getByLabel('First response within (minutes)').getAttribute('aria-invalid'),
      'true',
      'the refused field is marked',
    );
    await slas.getByLabel('First response within (minutes)').fill('30');
    await slas.getByRole('button', { name: 'Save: Service levels' }).click();
    await page.getByText('Service levels: saved').waitFor();
    t.equal((await storedWorkspace()).sla_first_response_minutes, 30);

    // A managed workspace cannot use "another agent": the API's 422 explains why, at the agent.
    const agent = page.locator('#ws-agent');
    await agent.getByLabel('Agent', { exact: true }).selectOption('other');
    await agent.getByRole('button', { name: 'Save: Diagnoses and fixes' }).click();
    await agent.getByRole('alert').first().waitFor();
    t.equal(
      await agent.getByLabel('Agent', { exact: true }).getAttribute('aria-invalid'),
      'true',
      'the agent field is marked',
    );
    await agent.getByRole('button', { name: 'Undo changes' }).click();

    // Reports and open source keep lists and numbers.
    const reports = page.locator('#ws-reports');
    await reports.getByLabel('Report recipients').fill('cto@northwind.example\nsupport@northwind.example');
    await reports.getByLabel('Send the report automatically each month').check();
    await reports.getByRole('button', { name: 'Save: Reports' }).click();
    await page.getByText('Reports: saved').waitFor();
    const after = await storedWorkspace();
    t.same(
      typeof after.report_recipients === 'string' ? JSON.parse(after.report_recipients) : after.report_recipients,
      ['cto@northwind.example', 'support@northwind.example'],
    );
    await expectAccessible(t, page, 'workspace settings');
    await screenshot(page, 'workspace-settings-en');

    // Archive, after confirming: the page says so and the settings no longer change.
    await page.getByRole('button', { name: 'Archive this workspace' }).click();
    const dialog = page.getByRole('dialog', { name: 'Archive Help desk?' });
    await dialog.waitFor();
    await expectAccessible(t, page, 'archive confirmation');
    await dialog.getByRole('button', { name: 'Archive it' }).click();
    await page.getByText(/^Archived on /).waitFor();
    t.ok(await page.getByLabel('Workspace name').isDisabled(), "an archived workspace's settings are read-only");
    t.ok((await storedWorkspace()).archived_at, 'archived on the service');
    await page.getByRole('link', { name: '← All workspaces' }).click();
    await page.getByLabel('Show archived workspaces').check();
    await page.getByRole('cell', { name: 'Archived' }).waitFor();
  });
}
