import t from 'tap';
import { insertWorkspace } from '../../../test/helpers/accounts.js';
import { startBilling } from './helpers.js';

t.test('add-ons and agency billing', async (t) => {
  const h = await startBilling(t);

  await t.test('the badge removal add-on: Managed plan only, billed on the subscription', async (t) => {
    const startup = await h.owner();
    await h.subscribe(startup, 'startup');
    const refused = await h.call(startup, 'PUT', '/v1/billing/addons/badge-removal', { enabled: true });
    t.equal(refused.status, 409);
    t.equal(refused.body.code, 'addon_not_available');

    const managed = await h.owner();
    await h.subscribe(managed, 'managed');
    t.equal((await h.billing(managed)).addons.badge_removal.available, true);
    const on = await h.call(managed, 'PUT', '/v1/billing/addons/badge-removal', { enabled: true });
    t.equal(on.status, 200, on.payload);
    t.same(on.body.addons.badge_removal, { available: true, active: true, price_usd: 19 });
    t.equal(on.body.summary.addons.badge_removal, true);
    const sub = (await h.app.db('payment_local_objects').where({ kind: 'subscription' }))
      .map((r: { data: { orgId: string; addons: Record<string, number> } }) => r.data)
      .find((d: { orgId: string }) => d.orgId === managed.organization.id);
    t.same(sub?.addons, { badge_removal: 1 }, 'the provider bills the add-on');
    const off = await h.call(managed, 'PUT', '/v1/billing/addons/badge-removal', { enabled: false });
    t.equal(off.body.summary.addons.badge_removal, false);
    t.equal((await h.audit(managed.organization.id, 'billing.badge_removal_changed')).length, 2);
  });

  await t.test(
    'an agency: managed add-on and resale of a client workspace, collected through its payout account',
    async (t) => {
      const agency = await h.owner({ organizationType: 'agency' });
      const ws = await insertWorkspace(h.app, agency.organization.id, { name: 'Client A', client_name: 'Acme' });
      const notYet = await h.call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/managed`, { enabled: true });
      t.equal(notYet.status, 409);
      t.equal(notYet.body.code, 'agency_plan_required');
      await h.subscribe(agency, 'agency');

      const managed = await h.call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/managed`, { enabled: true });
      t.equal(managed.status, 200, managed.payload);
      t.equal(managed.body.summary.addons.managed_workspaces, 1);
      t.match(managed.body.agency?.workspaces, [{ id: ws.id, client_name: 'Acme', managed_addon: true }]);
      t.equal(managed.body.agency?.managed_addon_price_usd, 149);
      t.match((await h.audit(agency.organization.id, 'billing.workspace_managed_changed'))[0], {
        workspace_id: ws.id,
        target_id: ws.id,
      });

      const early = await h.call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, {
        resale_price_usd: 300,
        collect_via_connect: true,
        client_email: 'billing@acme.example',
      });
      t.equal(early.status, 409);
      t.equal(early.body.code, 'connect_not_ready');

      const admin = await h.member(agency, 'admin');
      t.equal(
        (await h.call(admin, 'POST', '/v1/billing/connect/onboarding', { country: 'IT' })).status,
        403,
        'owners only',
      );
      const onboarding = await h.call(agency, 'POST', '/v1/billing/connect/onboarding', { country: 'it' });
      t.equal(onboarding.status, 200, onboarding.payload);
      t.match(onboarding.body.url, /\/pay\/local\/connect\/al_local_/);
      const accountId = (await h.billing(agency)).agency?.connect.account_id;
      t.match(accountId, /^acct_local_/);
      t.equal((await h.audit(agency.organization.id, 'billing.connect_account_created')).length, 1);
      t.match((await h.page(onboarding.body.url)).payload, /Payout account onboarding/);
      const done = await h.page(onboarding.body.url, { business: 'Agency Srl' });
      t.equal(done.status, 303);
      t.match(done.headers.location, /connect=return/);
      t.equal(
        (await h.page(onboarding.body.url, { business: 'x' })).headers.location?.toString().includes('connect=refresh'),
        true,
        'a used link sends to refresh',
      );
      const again = await h.call(agency, 'POST', '/v1/billing/connect/onboarding', { country: 'IT' });
      t.match(again.body.url, /\/pay\/local\/connect\//);
      t.equal((await h.billing(agency)).agency?.connect.account_id, accountId, 'the same account, a new link');

      const ready = await h.billing(agency);
      t.match(ready.agency?.connect, { charges_enabled: true, payouts_enabled: true, details_submitted: true });
      const noEmail = await h.call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, {
        resale_price_usd: 300,
        collect_via_connect: true,
      });
      t.equal(noEmail.status, 400);
      const resale = await h.call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, {
        resale_price_usd: 300,
        collect_via_connect: true,
        client_email: 'Billing@Acme.example',
      });
      t.equal(resale.status, 200, resale.payload);
      t.match(resale.body.agency?.workspaces[0], {
        resale_price_usd: 300,
        collect_via_connect: true,
        client_email: 'billing@acme.example',
      });
      t.match((await h.audit(agency.organization.id, 'billing.workspace_resale_changed'))[0], {
        changes: { resale_price: { before: null, after: 300 } },
      });

      const other = await h.owner();
      const foreign = await insertWorkspace(h.app, other.organization.id);
      t.equal(
        (await h.call(agency, 'PUT', `/v1/billing/workspaces/${foreign.id}/managed`, { enabled: true })).status,
        404,
        "another organization's workspace is not found",
      );
      t.equal(
        (
          await h.call(agency, 'PUT', `/v1/billing/workspaces/${foreign.id}/resale`, {
            resale_price_usd: 1,
            collect_via_connect: false,
          })
        ).status,
        404,
      );
      t.equal((await h.call(agency, 'PUT', '/v1/billing/workspaces/ws_nope/managed', { enabled: true })).status, 404);
    },
  );
});
