import t from 'tap';
import { signUp } from '../../../test/helpers/accounts.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { HOST, json, PNG_BASE64, sendEvents, setPassiveCollection, settings, userHash, workspace } from './helpers.js';

const app = await startTestApp(t);
const EVIL = 'https://evil.example.net';

t.test('a host page reads the config of its key; unknown and rotated keys answer 404', async (t) => {
  const owner = await signUp(app, { orgName: 'Config Co' });
  const ws = await workspace(app, owner);
  const key = ws.widget.public_key;

  const res = await app.server.inject({
    method: 'GET',
    url: `/v1/widget/config?key=${key}&locale=it-IT`,
    headers: { origin: HOST },
  });
  t.equal(res.statusCode, 200, res.payload);
  const config = json<{
    locale: string;
    texts: Record<string, string>;
    brand: { name: string; show_badge: boolean };
    capture: { console: boolean };
    passive_collection: { enabled: boolean };
  }>(res);
  t.equal(config.locale, 'it');
  t.equal(config.texts.button, 'Segnala un problema', 'Italian texts');
  t.match(config.brand.name, /^Shop /, 'no brand profile: the workspace name');
  t.equal(config.brand.show_badge, true);
  t.same(config.capture, { console: true, network: true, screenshot: true, max_entries: 30 });
  t.equal(config.passive_collection.enabled, false);
  t.equal(res.headers['access-control-allow-origin'], HOST, 'CORS for an allowed origin');

  const en = json<{ texts: Record<string, string> }>(
    await app.server.inject({ method: 'GET', url: '/v1/widget/config', headers: { 'x-widget-key': key } }),
  );
  t.equal(en.texts.button, 'Report a problem', 'default language of the workspace');

  // A brand profile with its own texts in its language.
  const bp = await app.server.inject({
    method: 'POST',
    url: '/v1/brand/profiles',
    payload: {
      name: 'Acme',
      is_default: true,
      primary_color: '#0055aa',
      locale: 'en',
      widget_texts: { button: 'Something broke?' },
    },
    ...owner.auth,
  });
  t.equal(bp.statusCode, 201, bp.payload);
  const branded = json<{ brand: { name: string; primary_color: string }; texts: Record<string, string> }>(
    await app.server.inject({ method: 'GET', url: `/v1/widget/config?key=${key}` }),
  );
  t.equal(branded.brand.name, 'Acme');
  t.equal(branded.texts.button, 'Something broke?');
  t.equal(branded.texts.submit, 'Send report', 'keys the profile leaves out keep the defaults');

  t.equal(
    (await app.server.inject({ method: 'GET', url: '/v1/widget/config?key=pk_unknownunknownunknownunknown00' }))
      .statusCode,
    404,
  );
  const rotated = await app.server.inject({
    method: 'POST',
    url: `/v1/workspaces/${ws.id}/widget/rotate-key`,
    ...owner.auth,
  });
  t.equal(rotated.statusCode, 200, rotated.payload);
  const fresh = json<{ public_key: string }>(rotated).public_key;
  t.not(fresh, key);
  const old = await app.server.inject({ method: 'GET', url: `/v1/widget/config?key=${key}` });
  t.equal(old.statusCode, 404, 'the rotated key stops at once');
  t.equal(json(old).code, 'not_found');
  t.equal((await app.server.inject({ method: 'GET', url: `/v1/widget/config?key=${fresh}` })).statusCode, 200);
  const seen = await settings(app, owner, ws.id);
  t.equal(
    (seen.install as { status: string; last_seen_origin: string }).status,
    'active',
    'fetched from an allowed origin: installed',
  );
  t.equal((seen.install as { last_seen_origin: string }).last_seen_origin, HOST);
});

t.test('an origin outside the allowed origins gets no CORS headers and 403 on writes', async (t) => {
  const owner = await signUp(app, { orgName: 'Cors Co' });
  const ws = await workspace(app, owner);
  const key = ws.widget.public_key;
  const pre = await app.server.inject({
    method: 'OPTIONS',
    url: `/v1/widget/reports?key=${key}`,
    headers: {
      origin: HOST,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type',
    },
  });
  t.equal(pre.statusCode, 204);
  t.equal(pre.headers['access-control-allow-origin'], HOST);
  t.match(String(pre.headers['access-control-allow-headers']), /content-type/);

  const badPre = await app.server.inject({
    method: 'OPTIONS',
    url: `/v1/widget/reports?key=${key}`,
    headers: { origin: EVIL, 'access-control-request-method': 'POST' },
  });
  t.equal(badPre.statusCode, 403);
  t.notOk(badPre.headers['access-control-allow-origin'], 'no CORS headers on the preflight');
  const read = await app.server.inject({
    method: 'GET',
    url: `/v1/widget/config?key=${key}`,
    headers: { origin: EVIL },
  });
  t.notOk(read.headers['access-control-allow-origin'], 'no CORS headers on a read');
  const write = await app.server.inject({
    method: 'POST',
    url: `/v1/widget/reports?key=${key}`,
    headers: { origin: EVIL },
    payload: { email: 'a@example.com', message: 'hi' },
  });
  t.equal(write.statusCode, 403);
  t.equal(json(write).code, 'origin_not_allowed');
  t.notOk(write.headers['access-control-allow-origin']);
  const tickets = json<{ items: unknown[] }>(
    await app.server.inject({ method: 'GET', url: `/v1/tickets?workspace_id=${ws.id}`, ...owner.auth }),
  );
  t.equal(tickets.items.length, 0, 'nothing was stored');

  // Wildcard origins match subdomains.
  const patch = await app.server.inject({
    method: 'PATCH',
    url: `/v1/workspaces/${ws.id}/widget`,
    payload: { allowed_origins: ['https://*.example.org'] },
    ...owner.auth,
  });
  t.equal(patch.statusCode, 200, patch.payload);
  const sub = await app.server.inject({
    method: 'GET',
    url: `/v1/widget/config?key=${key}`,
    headers: { origin: 'https://app.example.org' },
  });
  t.equal(sub.headers['access-control-allow-origin'], 'https://app.example.org');
  const bad = await app.server.inject({
    method: 'PATCH',
    url: `/v1/workspaces/${ws.id}/widget`,
    payload: { allowed_origins: ['https://shop.example.com/path'] },
    ...owner.auth,
  });
  t.equal(bad.statusCode, 400, 'an origin with a path is refused');
});

t.test('passive events need the host consent and passive collection, then reach an error group', async (t) => {
  const owner = await signUp(app, { orgName: 'Events Co' });
  const ws = await workspace(app, owner);
  const key = ws.widget.public_key;
  const event = {
    type: 'TypeError',
    message: "Cannot read properties of undefined (reading 'total')",
    stack: 'TypeError: x\n    at checkout (https://shop.example.com/assets/app.js:10:5)',
    url: 'https://shop.example.com/cart',
    release: '1.4.0',
  };

  const noConsent = await sendEvents(app, key, { consent: false, events: [event] });
  t.equal(noConsent.statusCode, 403);
  t.equal(json(noConsent).code, 'consent_required');
  t.equal(noConsent.headers['access-control-allow-origin'], HOST, 'the refusal is readable by the allowed page');
  const off = await sendEvents(app, key, { consent: true, events: [event] });
  t.equal(off.statusCode, 403);
  t.equal(json(off).code, 'passive_collection_disabled');

  t.equal(await setPassiveCollection(app, owner, ws.id, true), 200);
  const ok = await sendEvents(
    app,
    key,
    {
      consent: true,
      user_id: 'u-1',
      events: [event, { ...event, message: "Cannot read properties of undefined (reading 'total')" }],
    },
    {
      origin: HOST,
      'user-agent':
        'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36',
    },
  );
  t.equal(ok.statusCode, 202, ok.payload);
  t.same(json(ok), { accepted: 2, duplicates: 0 });
  const groups = json<{ items: Array<{ id: string; event_count: number; sources: string[] }> }>(
    await app.server.inject({ method: 'GET', url: `/v1/error-groups?workspace_id=${ws.id}`, ...owner.auth }),
  );
  t.equal(groups.items.length, 1, 'both events fall into one group');
  t.equal(groups.items[0].event_count, 2);
  t.same(groups.items[0].sources, ['widget']);

  // The settings are cached for a moment per process; turning passive collection off is at once here.
  t.equal(await setPassiveCollection(app, owner, ws.id, false), 200);
  const stopped = await sendEvents(app, key, { consent: true, events: [event] });
  t.equal(json(stopped).code, 'passive_collection_disabled', 'off takes effect on the next event');
  t.equal(await setPassiveCollection(app, owner, ws.id, true), 200);

  const limited = await startLimit(key);
  t.equal(limited.statusCode, 429, 'rate limited per key');
  t.ok(limited.headers['retry-after']);
  // Once the shared counter answered 429, this process refuses the key itself until the window ends.
  await app
    .db('rate_limits')
    .where({ key: `widget-events:${ws.id}` })
    .delete();
  const still = await sendEvents(app, key, { consent: true, events: [{ message: 'x' }] });
  t.equal(still.statusCode, 429, 'still refused within the window');
  t.ok(Number(still.headers['retry-after']) >= 1, 'with Retry-After');
  t.notOk(
    await app
      .db('rate_limits')
      .where({ key: `widget-events:${ws.id}` })
      .first(),
    'without a query to the shared counter',
  );
});

t.test('the events path keeps a live install for a moment; changes made here apply at once', async (t) => {
  const owner = await signUp(app, { orgName: 'Install Cache Co' });
  const ws = await workspace(app, owner);
  const key = ws.widget.public_key;
  t.equal(await setPassiveCollection(app, owner, ws.id, true), 200);
  const send = (k: string, origin = HOST) =>
    sendEvents(app, k, { consent: true, events: [{ message: 'cached install' }] }, { origin });
  t.equal((await send(key)).statusCode, 202);

  // A change another process made (here: a raw update nobody announces) is seen once the entry ages out.
  await app
    .db('workspaces')
    .where({ id: ws.id })
    .update({ widget_allowed_origins: JSON.stringify(['https://elsewhere.example.com']) });
  t.equal((await send(key)).statusCode, 202, 'the cached install still admits the old origin');
  t.equal(
    (await app.server.inject({ method: 'GET', url: `/v1/widget/config?key=${key}`, headers: { origin: HOST } }))
      .headers['access-control-allow-origin'],
    undefined,
    'other paths read the install each time',
  );

  // Changes made through this process's settings service apply to the next event.
  t.equal(
    (
      await app.server.inject({
        method: 'PATCH',
        url: `/v1/workspaces/${ws.id}/widget`,
        payload: { allowed_origins: [HOST] },
        ...owner.auth,
      })
    ).statusCode,
    200,
  );
  t.equal((await send(key, 'https://elsewhere.example.com')).statusCode, 403, 'the new allowed origins at once');
  const rotated = await app.server.inject({
    method: 'POST',
    url: `/v1/workspaces/${ws.id}/widget/rotate-key`,
    ...owner.auth,
  });
  t.equal(rotated.statusCode, 200);
  t.equal((await send(key)).statusCode, 404, 'the rotated key stops at once');
  t.equal((await send(json<{ public_key: string }>(rotated).public_key)).statusCode, 202, 'the new key works');
});

/**
 * Fills the key's minute window (eventsPerMinute defaults to 600; the test raises the shared
 * count past it), then sends until the answer is 429: this process may still hold hits it
 * reserved from the window before (a twentieth of the limit at most), which it spends first.
 */
async function startLimit(key: string) {
  const row = await app.db('workspaces').where({ widget_public_key: key }).first<{ id: string }>('id');
  await app
    .db('rate_limits')
    .insert({ key: `widget-events:${row.id}`, window_start: new Date(), count: 100_000 })
    .onConflict('key')
    .merge();
  for (let i = 0; ; i++) {
    const res = await sendEvents(app, key, { consent: true, events: [{ message: 'x' }] });
    if (res.statusCode !== 202 || i >= 600 / 20) return res;
  }
}

t.test('identify links the end-user hash to an email, with consent', async (t) => {
  const owner = await signUp(app, { orgName: 'Identify Co' });
  const ws = await workspace(app, owner);
  const s = await settings(app, owner, ws.id);
  t.match(s.identity_secret, /^wis_/);
  const key = ws.widget.public_key;
  const email = 'Mario.Rossi@example.com';
  const hash = userHash(s.identity_secret, email);

  const noConsent = await app.server.inject({
    method: 'POST',
    url: '/v1/widget/identify',
    headers: { origin: HOST, 'x-widget-key': key },
    payload: { consent: false, email, user_hash: hash },
  });
  t.equal(noConsent.statusCode, 403);
  t.equal(json(noConsent).code, 'consent_required');
  const wrong = await app.server.inject({
    method: 'POST',
    url: '/v1/widget/identify',
    headers: { origin: HOST, 'x-widget-key': key },
    payload: { consent: true, email: 'someone@example.com', user_hash: hash },
  });
  t.equal(wrong.statusCode, 401);
  t.equal(json(wrong).code, 'invalid_user_hash');
  // An event of the user before identify carries no email; one after it does (no stale "unknown").
  t.equal(await setPassiveCollection(app, owner, ws.id, true), 200);
  const sendEvent = (message: string) =>
    sendEvents(app, key, { consent: true, user_id: 'user-42', events: [{ message }] });
  t.equal((await sendEvent('before identify')).statusCode, 202);
  const ok = await app.server.inject({
    method: 'POST',
    url: '/v1/widget/identify',
    headers: { origin: HOST },
    payload: { public_key: key, consent: true, email, user_hash: hash, user_id: 'user-42' },
  });
  t.equal((await sendEvent('after identify')).statusCode, 202);
  const users = await app
    .db('error_events')
    .where({ workspace_id: ws.id })
    .orderBy('message')
    .select<Array<{ message: string; user: { id: string; email?: string } }>>('message', 'user');
  t.same(
    users.map((u) => [u.message, u.user.email ?? null]),
    [
      ['after identify', 'mario.rossi@example.com'],
      ['before identify', null],
    ],
  );
  t.equal(ok.statusCode, 200, ok.payload);
  t.same(json(ok), { identified: true, email: 'mario.rossi@example.com', user_id: 'user-42' });
  const row = (await app.db('widget_identities').where({ workspace_id: ws.id }).first()) as {
    email: string;
    user_id: string;
  };
  t.equal(row.email, 'mario.rossi@example.com');
  t.equal(row.user_id, 'user-42');

  const report = await app.server.inject({
    method: 'POST',
    url: `/v1/widget/reports?key=${key}`,
    headers: { origin: HOST },
    payload: { email, message: 'It broke', user_id: 'user-42' },
  });
  t.equal(report.statusCode, 201, report.payload);
  t.equal(json(report).identified, true, 'a report of the identified user is marked');

  // Erasing the person (privacy plugin) reaches the widget's identities and reports.
  const erased = await app.server.inject({
    method: 'POST',
    url: '/v1/privacy/erasures',
    payload: { email },
    ...owner.auth,
  });
  t.equal(erased.statusCode, 201, erased.payload);
  t.match(json<{ counts: Record<string, number> }>(erased).counts, { widget_identities: 1, widget_reports: 1 });
  t.notOk(await app.db('widget_identities').where({ workspace_id: ws.id }).first());
});

t.test('a report opens a ticket of origin widget with its context and screenshot', async (t) => {
  const owner = await signUp(app, { orgName: 'Reports Co' });
  const ws = await workspace(app, owner);
  const key = ws.widget.public_key;
  const context = {
    console: [
      {
        level: 'error',
        message: 'Payment failed for giulia@example.com token=abc123secret',
        timestamp: new Date().toISOString(),
      },
      {
        level: 'unhandled_rejection',
        message: 'Request failed',
        stack: 'Error: Request failed\n    at pay (app.js:1:1)',
        timestamp: new Date().toISOString(),
      },
    ],
    network: [
      {
        method: 'post',
        url: 'https://shop.example.com/api/pay?access_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.abcdefghijk',
        status: 500,
        duration_ms: 312,
        timestamp: new Date().toISOString(),
      },
    ],
    browser: {
      user_agent:
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      viewport: { width: 1280, height: 800 },
    },
    url: 'https://shop.example.com/checkout',
    release: '2.3.1',
  };
  const noShotConsent = await app.server.inject({
    method: 'POST',
    url: `/v1/widget/reports?key=${key}`,
    headers: { origin: HOST },
    payload: { email: 'giulia@example.com', message: 'x', screenshot: PNG_BASE64 },
  });
  t.equal(noShotConsent.statusCode, 403);
  t.equal(json(noShotConsent).code, 'consent_required');
  const notImage = await app.server.inject({
    method: 'POST',
    url: `/v1/widget/reports?key=${key}`,
    headers: { origin: HOST },
    payload: {
      email: 'giulia@example.com',
      message: 'x',
      screenshot: Buffer.from('hello').toString('base64'),
      screenshot_consent: true,
    },
  });
  t.equal(notImage.statusCode, 422);
  t.equal(json(notImage).code, 'invalid_screenshot');
  t.equal(
    (
      await app.server.inject({
        method: 'POST',
        url: `/v1/widget/reports?key=${key}`,
        headers: { origin: HOST },
        payload: { message: 'no email' },
      })
    ).statusCode,
    400,
  );

  const res = await app.server.inject({
    method: 'POST',
    url: `/v1/widget/reports?key=${key}`,
    headers: { origin: HOST },
    payload: {
      email: 'Giulia@example.com',
      name: 'Giulia',
      message: 'The payment page fails\nI tried twice.',
      locale: 'it',
      technical_consent: true,
      context,
      screenshot: `data:image/png;base64,${PNG_BASE64}`,
      screenshot_consent: true,
    },
  });
  t.equal(res.statusCode, 201, res.payload);
  const receipt = json<{ ticket_id: string; status_url: string }>(res);
  t.match(receipt.status_url, /\/status\/st_/);
  const ticket = json<{
    origin: string;
    subject: string;
    customer_email: string;
    language: string;
    messages: Array<{
      body_text: string;
      widget_context: Record<string, unknown> & {
        console: Array<{ message: string }>;
        network: Array<{ url: string; method: string }>;
        browser: { name: string; os: string };
        screenshot_url: string;
      };
    }>;
  }>(await app.server.inject({ method: 'GET', url: `/v1/tickets/${receipt.ticket_id}`, ...owner.auth }));
  t.equal(ticket.origin, 'widget');
  t.equal(ticket.subject, 'The payment page fails');
  t.equal(ticket.customer_email, 'giulia@example.com');
  t.equal(ticket.language, 'it');
  const wc = ticket.messages[0].widget_context;
  t.equal(wc.console.length, 2);
  t.equal(wc.console[0].message, 'Payment failed for [email] token=[masked]', 'emails and tokens masked');
  t.notMatch(wc.network[0].url, /eyJ/);
  t.equal(wc.network[0].method, 'POST');
  t.equal(wc.browser.name, 'Safari');
  t.equal(wc.browser.os, 'macOS');
  t.equal(wc.url, 'https://shop.example.com/checkout');
  t.equal(wc.release, '2.3.1');
  t.match(wc.screenshot_url, /^http/, 'the screenshot is a file of the ticket');
  const files = await app
    .db('ticket_files')
    .where({ ticket_id: receipt.ticket_id })
    .select<Array<{ kind: string; content_type: string }>>('kind', 'content_type');
  t.same(files, [{ kind: 'screenshot', content_type: 'image/png' }]);

  // Without technical consent only the page and release are kept.
  const plain = await app.server.inject({
    method: 'POST',
    url: `/v1/widget/reports?key=${key}`,
    headers: { origin: HOST },
    payload: { email: 'p@example.com', message: 'Plain', context },
  });
  t.equal(plain.statusCode, 201);
  const plainTicket = json<{ messages: Array<{ widget_context: Record<string, unknown> }> }>(
    await app.server.inject({
      method: 'GET',
      url: `/v1/tickets/${json<{ ticket_id: string }>(plain).ticket_id}`,
      ...owner.auth,
    }),
  );
  t.same(plainTicket.messages[0].widget_context, {
    console: [],
    network: [],
    url: 'https://shop.example.com/checkout',
    release: '2.3.1',
  });
});

t.test('another organization cannot see or change a workspace’s widget', async (t) => {
  const owner = await signUp(app, { orgName: 'Owner Co' });
  const stranger = await signUp(app, { orgName: 'Stranger Co' });
  const ws = await workspace(app, owner);
  for (const [method, url] of [
    ['GET', ''],
    ['PATCH', ''],
    ['POST', '/rotate-key'],
    ['POST', '/test-report'],
  ] as const) {
    const res = await app.server.inject({
      method,
      url: `/v1/workspaces/${ws.id}/widget${url}`,
      ...(method === 'PATCH' ? { payload: { passive_collection: { enabled: true } } } : {}),
      ...stranger.auth,
    });
    t.equal(res.statusCode, 404, `${method} ${url}`);
    t.equal(json(res).code, 'not_found');
  }
  t.equal((await app.server.inject({ method: 'GET', url: `/v1/workspaces/${ws.id}/widget` })).statusCode, 401);
});

t.test('the script is served with a long cache and an ETag; the operations are documented', async (t) => {
  const res = await app.server.inject({ method: 'GET', url: '/widget.js' });
  t.equal(res.statusCode, 200);
  t.match(String(res.headers['content-type']), /javascript/);
  t.match(String(res.headers['cache-control']), /max-age=86400/);
  t.ok(res.headers.etag);
  t.match(res.payload, /\/v1\/widget\/reports/);
  const again = await app.server.inject({
    method: 'GET',
    url: '/widget.js',
    headers: { 'if-none-match': String(res.headers.etag) },
  });
  t.equal(again.statusCode, 304);

  const doc = json<{ paths: Record<string, Record<string, { operationId: string; tags: string[] }>> }>(
    await app.server.inject({ method: 'GET', url: '/v1/openapi.json' }),
  );
  const ops = Object.values(doc.paths)
    .flatMap((p) => Object.values(p))
    .filter((o) => o.tags?.includes('widget'))
    .map((o) => o.operationId)
    .sort();
  t.same(ops, [
    'createWidgetEvents',
    'createWidgetReport',
    'createWorkspaceWidgetTestReport',
    'getWidgetConfig',
    'getWorkspaceWidget',
    'identifyWidgetUser',
    'rotateWorkspaceWidgetKey',
    'updateWorkspaceWidget',
  ]);
});
