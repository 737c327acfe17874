import t from 'tap';
import { insertWorkspace } from '../../../test/helpers/accounts.js';
import { waitFor } from '../../../test/helpers/wait.js';
import type { Answer, Schema } from '../../../test/helpers/api-types.js';
import type { LocalInvoice, LocalSubscription } from '../../../adapters/payment-local/types.js';
import { startBilling } from './helpers.js';

/** The payment-local documents the tests read, by kind. */
type LocalDocs = { subscription: LocalSubscription; invoice: LocalInvoice };

/** The resale collection of an agency's (only) client workspace, in a billing answer. */
const collectionOf = (billing: Schema<'Billing'>) => billing.agency?.workspaces[0].collection;

t.test('extra workspaces and agency resale on payment-local', async (t) => {
  const h = await startBilling(t);
  const db = h.app.db;
  const localDoc = async <K extends keyof LocalDocs>(
    kind: K,
    pred: (d: LocalDocs[K]) => boolean,
  ): Promise<LocalDocs[K] | undefined> =>
    ((await db('payment_local_objects').where({ kind }).orderBy('created_at')) as { data: LocalDocs[K] }[])
      .map((r) => r.data)
      .find(pred);

  await t.test('a paid plan bills each workspace beyond the included ones on its subscription', async (t) => {
    const owner = await h.owner();
    const orgId = owner.organization.id;
    await h.subscribe(owner, 'indie'); // a 14-day trial: 1 workspace included, 15 USD a month each extra
    const sub = () => localDoc('subscription', (d) => d.orgId === orgId);
    const quantity = async () =>
      Number(
        (
          (await db('billing_accounts').where({ org_id: orgId }).first()) as {
            extra_workspace_quantity: number | string;
          }
        ).extra_workspace_quantity,
      );

    const created = [];
    for (const name of ['Shop', 'Blog', 'Docs']) {
      const res = await h.call(owner, 'POST', '/v1/workspaces', { name });
      t.equal(res.status, 201, res.payload);
      created.push(res.body.id);
    }
    await waitFor(async () => (await sub())?.extraWorkspaces === 2, 'the provider bills 2 extra workspaces');
    await waitFor(async () => (await quantity()) === 2, 'billing records 2');
    const billing = await h.billing(owner);
    t.same(billing.summary.workspaces, { used: 3, included: 1, extra: 2, extra_price_usd: 15 });

    t.equal((await h.call(owner, 'POST', `/v1/workspaces/${created[2]}/archive`)).status, 200);
    await waitFor(async () => (await sub())?.extraWorkspaces === 1, 'archiving lowers the quantity');
    await waitFor(async () => (await quantity()) === 1, 'billing records it');
    // Each change was sent once; events that found nothing to change (the first workspace, repeats) sent nothing.
    const audit = await h.audit(orgId, 'billing.extra_workspaces_changed');
    t.match(audit.at(-1), { changes: { extra_workspace_quantity: { after: 1 } } });
    const calls = (await db('payment_local_objects').where({ kind: 'idempotency' })).filter((r: { id: string }) =>
      r.id.startsWith(`idem_item_extra-ws:${orgId}:`),
    );
    t.equal(calls.length, audit.length, 'one provider call per change');
    t.ok(audit.length >= 2 && audit.length <= 3);

    // The trial ends: the first invoice has the plan and the extra workspace.
    const trialEnd = new Date((await sub())!.currentPeriodEnd);
    await h.local.runClock(new Date(trialEnd.getTime() + 60_000));
    const invoices = await h.call(owner, 'GET', '/v1/billing/invoices');
    const renewal = invoices.body.items.find((i) => i.amount_paid_usd > 0);
    t.match(renewal, { purpose: 'subscription', status: 'paid', amount_paid_usd: 29 + 15 });
    if (!renewal?.hosted_invoice_url) throw new Error(`no hosted renewal invoice: ${invoices.payload}`);
    const hosted = await h.page(renewal.hosted_invoice_url);
    t.match(hosted.payload, /indie plan \+ 1 extra workspace × 15\.00 USD/);
  });

  await t.test('an agency collects its resale price from a client through its payout account', async (t) => {
    const agency = await h.owner({ organizationType: 'agency' });
    const orgId = agency.organization.id;
    await h.subscribe(agency, 'agency');
    const ws = await insertWorkspace(h.app, orgId, { name: 'Acme support', client_name: 'Acme' });
    const put = (body: Record<string, unknown>) =>
      h.call(agency, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, body);
    const resale = { resale_price_usd: 300, collect_via_connect: true, client_email: 'billing@acme.example' };

    t.match(await put(resale), { status: 409, body: { code: 'connect_not_ready' } }, 'no payout account yet');
    const onboarding = await h.call(agency, 'POST', '/v1/billing/connect/onboarding', { country: 'IT' });
    await h.page(onboarding.body.url, { business: 'Agency Srl' });
    const accountId = (await h.billing(agency)).agency?.connect.account_id;
    if (!accountId) throw new Error('the onboarding made no payout account');

    // Charges enabled but payouts not (yet): still refused.
    await db('billing_accounts').where({ org_id: orgId }).update({ connect_payouts_enabled: false });
    t.match(await put(resale), {
      status: 409,
      body: { code: 'connect_not_ready', details: { payouts_enabled: false } },
    });
    await db('billing_accounts').where({ org_id: orgId }).update({ connect_payouts_enabled: true });

    const started = await put(resale);
    t.equal(started.status, 200, started.payload);
    const collection = collectionOf(started.body);
    t.match(collection, {
      status: 'pending',
      amount_usd: 300,
      platform_fee_percent: 5,
      periods_paid: 0,
      collected_usd: 0,
    });
    const checkoutUrl = collection?.checkout_url;
    t.match(checkoutUrl, /\/pay\/local\/checkout\/cs_local_/);
    if (!checkoutUrl) throw new Error('a pending collection has a checkout page');
    t.equal(started.body.agency?.platform_fee_percent, 5);
    const again = await put(resale);
    t.equal(collectionOf(again.body)?.checkout_url, checkoutUrl, 'the same settings keep the same page');
    t.equal((await db('billing_resales').where({ org_id: orgId })).length, 1);
    t.match(
      await h.mails(orgId, 'billing.resale_payment_link'),
      [{ to_address: 'billing@acme.example', subject: /monthly payment for Acme/ }],
      'the client gets the link by email',
    );

    // The client pays on the page (Italian page text is there too).
    t.match((await h.page(`${checkoutUrl}?lang=it`)).payload, /Addebito mensile/);
    const paid = await h.page(checkoutUrl, { card: '4242 4242 4242 4242' });
    t.equal(paid.status, 303, paid.payload);
    const after = await h.billing(agency);
    t.match(collectionOf(after), {
      status: 'active',
      checkout_url: null,
      periods_paid: 1,
      collected_usd: 300,
      transferred_usd: 285,
      platform_fees_usd: 15,
    });
    const invoices = (await h.call(agency, 'GET', '/v1/billing/invoices')).body.items;
    t.match(
      invoices.filter((i) => i.purpose === 'resale'),
      [{ status: 'paid', amount_paid_usd: 300 }],
    );
    const payout = await h.local.payoutAccount(accountId);
    t.equal(payout?.account.balanceUsd, 285, 'the payout account received the price minus the platform fee');
    t.match(payout?.transfers, [{ amountUsd: 285, feeUsd: 15, workspaceId: ws.id }]);
    t.match(await db('billing_resale_charges').where({ org_id: orgId }), [
      { workspace_id: ws.id, status: 'paid', destination_account_id: accountId },
    ]);
    t.equal((await h.audit(orgId, 'billing.resale_charged')).length, 1);

    // The same period is never recorded as charged twice: a replayed event, and a second invoice for the period.
    const sub = (await localDoc('subscription', (d) => d.resale?.workspaceId === ws.id))!;
    const invoice = (await localDoc('invoice', (d) => d.subscriptionId === sub.id))!;
    const deliver = async (
      id: string,
      data: Record<string, unknown>,
      type = 'invoice.paid',
      created = new Date().toISOString(),
    ) => {
      const raw = Buffer.from(JSON.stringify({ id, type, created, org_id: orgId, data }));
      const res = await h.app.server.inject({
        method: 'POST',
        url: '/v1/webhooks/payment/local',
        payload: raw,
        headers: { ...h.local.sign(raw), 'content-type': 'application/json' },
      });
      return {
        status: res.statusCode,
        body: JSON.parse(res.payload) as Answer<'POST', '/v1/webhooks/payment/local'>,
      };
    };
    const invoiceData = {
      invoice: {
        invoiceId: invoice.id,
        number: invoice.number,
        customerId: invoice.customerId,
        subscriptionId: sub.id,
        purpose: 'resale',
        status: 'paid',
        amountPaidUsd: 300,
        amountDueUsd: 300,
        currency: 'usd',
        periodStart: invoice.periodStart,
        periodEnd: invoice.periodEnd,
        hostedInvoiceUrl: null,
        workspaceId: ws.id,
        transfer: { destinationAccountId: accountId, amountUsd: 285, platformFeeUsd: 15 },
      },
    };
    t.match(await deliver('evt_replay_1', invoiceData), { status: 200, body: { duplicate: false } });
    t.match(await deliver('evt_replay_1', invoiceData), { status: 200, body: { duplicate: true } });
    t.equal(
      (await deliver('evt_second_invoice', { invoice: { ...invoiceData.invoice, invoiceId: 'in_local_second' } }))
        .status,
      200,
    );
    t.match(await db('billing_events').where({ event_id: 'evt_second_invoice' }), [
      { outcome: /skipped:period_already_charged/ },
    ]);
    t.equal((await db('billing_resale_charges').where({ org_id: orgId, status: 'paid' })).length, 1);
    t.equal(collectionOf(await h.billing(agency))?.collected_usd, 300);

    // A new price applies from the next period; the clock renews and charges it.
    t.equal((await put({ ...resale, resale_price_usd: 350 })).status, 200);
    t.equal((await localDoc('subscription', (d) => d.id === sub.id))!.resale?.amountUsd, 350);
    await h.local.runClock(new Date(new Date(sub.currentPeriodEnd).getTime() + 60_000));
    const renewed = await h.billing(agency);
    t.match(collectionOf(renewed), {
      status: 'active',
      amount_usd: 350,
      periods_paid: 2,
      collected_usd: 650,
      transferred_usd: 617.5,
    });
    t.equal((await h.local.payoutAccount(accountId))?.account.balanceUsd, 285 + 332.5);

    // Webhook-driven status: the provider reports the client's subscription past due; an older event changes nothing.
    const current = (await localDoc('subscription', (d) => d.id === sub.id))!;
    const state = {
      subscriptionId: sub.id,
      customerId: sub.customerId,
      workspaceId: ws.id,
      amountUsd: 350,
      currentPeriodStart: current.currentPeriodStart,
      currentPeriodEnd: current.currentPeriodEnd,
      cancelAtPeriodEnd: false,
    };
    const later = new Date(h.local.now().getTime() + 86_400_000).toISOString();
    t.equal(
      (await deliver('evt_past_due', { resale: { ...state, status: 'past_due' } }, 'resale.updated', later)).status,
      200,
    );
    t.equal(collectionOf(await h.billing(agency))?.status, 'past_due');
    t.equal(
      (
        await deliver(
          'evt_stale',
          { resale: { ...state, status: 'active' } },
          'resale.updated',
          h.local.now().toISOString(),
        )
      ).status,
      200,
    );
    t.match(await db('billing_events').where({ event_id: 'evt_stale' }), [{ outcome: 'skipped:stale' }]);
    t.equal(collectionOf(await h.billing(agency))?.status, 'past_due');
    t.match(await h.audit(orgId, 'billing.resale_status_changed'), [
      { changes: { status: { before: 'pending', after: 'active' } } },
      { changes: { status: { before: 'active', after: 'past_due' } } },
    ]);

    // Turning collection off stops the subscription at the end of the paid period.
    const off = await put({ ...resale, collect_via_connect: false });
    t.equal(off.status, 200, off.payload);
    t.equal(collectionOf(off.body)?.cancel_at_period_end, true);
    await h.local.runClock(new Date(new Date(current.currentPeriodEnd).getTime() + 60_000));
    await waitFor(async () => collectionOf(await h.billing(agency))?.status === 'canceled', 'the collection ends');
    t.equal(
      (await db('billing_resale_charges').where({ org_id: orgId, status: 'paid' })).length,
      2,
      'nothing charged after it ended',
    );

    const other = await h.owner({ organizationType: 'agency' });
    t.equal(
      (await h.call(other, 'PUT', `/v1/billing/workspaces/${ws.id}/resale`, resale)).status,
      409,
      "another organization's workspace: the agency plan check comes first",
    );
  });
});
