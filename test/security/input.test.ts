import { createHmac } from 'node:crypto';
import t from 'tap';
import { signUp } from '../helpers/accounts.js';
import type { ApiError } from '../helpers/api-types.js';
import { deliverMime, inboundEmail } from '../helpers/mail.js';
import {
  HOST_SECRET,
  MAIL_SECRET,
  OFFLINE_ADAPTERS,
  call,
  createWorkspace,
  fieldErrors,
  startSecurityApp,
  uid,
} from './helpers.js';

/**
 * Text Postgres cannot store (NUL, unpaired surrogates) never reaches it: one rule in the core
 * answers 400 invalid_request naming the field, for path ids, the query, headers and JSON bodies,
 * raw JSON bodies included; what arrives inside raw bodies of other kinds (a MIME message, a
 * form-encoded code-host delivery) is made storable or refused by the route, never a 500.
 */

const app = await startSecurityApp(t, OFFLINE_ADAPTERS);
const owner = await signUp(app);
const ws = await createWorkspace(app, owner);

const to = ws.inbound_address as string;
const deliver = (subject: string, body: string) =>
  deliverMime(app, inboundEmail({ to, subject, body }), to, MAIL_SECRET);

const first = (await deliver('Checkout fails', 'The button does nothing.')).body;
const ticketId = first.results[0].ticket_id as string;

t.test('a NUL in a path id answers 400 on the operations that need no sign-in', async (t) => {
  for (const [method, url] of [
    ['GET', '/v1/auth/sso/saml/x%00y/metadata'],
    ['GET', '/v1/auth/sso/connections/x%00y'],
    ['POST', '/v1/auth/sso/connections/x%00y/start'],
    ['POST', '/v1/ingest/x%00y'],
    ['POST', '/v1/webhooks/error-tracker/x%00y'],
  ] as const) {
    const res = await call(app, null, method, url, method === 'POST' ? {} : undefined);
    t.equal(res.status, 400, `${method} ${url}`);
    t.equal(res.body.code, 'invalid_request');
    t.match(fieldErrors(res.body)?.[0].path, /^params\./, 'the path parameter is named');
  }
  const signedIn = await call(app, owner, 'GET', '/v1/workspaces/ws%00x');
  t.equal(signedIn.status, 400, 'and on the signed-in ones');
  const surrogate = await call(app, owner, 'GET', '/v1/workspaces/ws%ED%A0%80');
  t.equal(surrogate.status, 400, 'an unpaired surrogate in the path (CESU-8 bytes) too');
});

t.test('a NUL or an unpaired surrogate in a JSON string answers 400 and stores nothing', async (t) => {
  const notes = async () =>
    Number(
      (
        (await app.db('ticket_messages').where({ ticket_id: ticketId }).count('* as n').first()) as {
          n: string | number;
        }
      ).n,
    );
  const before = await notes();
  for (const body_md of ['see the log\u0000', 'broken \ud800 text', '\udc00']) {
    const res = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/notes`, { body_md });
    t.equal(res.status, 400, JSON.stringify(body_md));
    t.same(fieldErrors(res.body), [
      { path: 'payload.body_md', message: 'must not contain NUL characters or unpaired surrogates' },
    ]);
  }
  t.equal(await notes(), before, 'no note was stored');
  const good = await call(app, owner, 'POST', `/v1/tickets/${ticketId}/notes`, {
    body_md: 'A paired surrogate is fine: 😀',
  });
  t.ok(good.status < 300, `clean text passes (${good.status})`);

  const nested = await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, {
    agent_config: { model: 'm\u0000' },
  });
  t.equal(nested.status, 400);
  t.equal(fieldErrors(nested.body)?.[0].path, 'payload.agent_config.model', 'a nested field is named');
  const key = await call(app, owner, 'PATCH', `/v1/workspaces/${ws.id}`, JSON.parse('{"name":"ok","x\\u0000":1}'));
  t.equal(key.status, 400, 'a NUL in a key');
  const brand = await call(app, owner, 'PUT', `/v1/brand/workspaces/${ws.id}`, {
    brand_profile_id: 'bp\u0000',
  });
  t.equal(brand.status, 400, 'brand workspaces');
  const match = await call(app, owner, 'POST', '/v1/patterns/match', { ticket_id: `${ticketId}\u0000` });
  t.equal(match.status, 400, 'patterns/match');
});

t.test('the query and stored headers follow the same rule', async (t) => {
  t.equal((await call(app, owner, 'GET', '/v1/workspaces?cursor=a%00b')).status, 400, 'query');
  const ua = await app.server.inject({
    method: 'POST',
    url: '/v1/auth/login',
    payload: { email: owner.email, password: owner.password },
    headers: { 'user-agent': 'curl\u0000/8' },
  });
  t.equal(ua.statusCode, 400, 'a User-Agent (stored with the session) with a NUL');
  t.equal(fieldErrors(JSON.parse(ua.payload) as ApiError)?.[0].path, 'headers.user-agent');
});

t.test(
  'raw JSON bodies: a \\u0000 escape or an unpaired surrogate escape answers 400; escaped backslashes do not',
  async (t) => {
    const post = (url: string, text: string) =>
      app.server.inject({ method: 'POST', url, payload: text, headers: { 'content-type': 'application/json' } });
    for (const text of ['{"id":"a\\u0000b"}', '{"id":"\\uD800x"}', '{"id":"\\udc00"}', '{"id":"ok"}\u0000']) {
      const res = await post('/v1/webhooks/payment/local', text);
      t.equal(res.statusCode, 400, text);
      t.equal(
        (JSON.parse(res.payload) as ApiError).code,
        'invalid_request',
        'refused by the guard, before the signature check',
      );
    }
    const literal = await post('/v1/webhooks/payment/local', '{"id":"C:\\\\u0000 is a path, \\uD83D\\uDE00 a pair"}');
    t.not(
      (JSON.parse(literal.payload) as ApiError).code,
      'invalid_request',
      `an escaped backslash before u0000 and a surrogate pair pass to the route (${literal.statusCode})`,
    );
    t.ok(literal.statusCode < 500);
    // Error events are telemetry: the ingest route stores them cleaned (plugins/proactive/test/ingest.test.ts).
    const ingest = await post('/v1/ingest/con_x', '{"message":"a\\u0000b"}');
    t.equal(ingest.statusCode, 401, 'ingest reaches its own authentication and cleaning');
  },
);

t.test('inside a MIME message NULs are dropped, the message is taken', async (t) => {
  const res = await deliver('Hel\u0000lo there', 'Bo\u0000dy with a NUL');
  t.equal(res.status, 200, res.payload);
  const result = res.body.results[0];
  t.equal(result.status, 'processed');
  const ticket = await call(app, owner, 'GET', `/v1/tickets/${result.ticket_id as string}`);
  t.equal(ticket.body.subject, 'Hello there', 'stored without the NUL');
});

t.test('a form-encoded code-host delivery with a NUL is refused as a bad payload', async (t) => {
  const body = Buffer.from(`payload=${encodeURIComponent(JSON.stringify({ zen: 'a\u0000b', hook_id: 1 }))}`);
  const res = await app.server.inject({
    method: 'POST',
    url: '/v1/webhooks/codehost',
    payload: body,
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-github-event': 'ping',
      'x-github-delivery': `d-${uid()}`,
      'x-hub-signature-256': `sha256=${createHmac('sha256', HOST_SECRET).update(body).digest('hex')}`,
    },
  });
  t.equal(res.statusCode, 400, res.payload);
});

t.test('a deeply nested body is not a 500', async (t) => {
  const deep = '['.repeat(200_000) + ']'.repeat(200_000);
  const res = await app.server.inject({
    method: 'PATCH',
    url: `/v1/workspaces/${ws.id}`,
    payload: deep,
    headers: { ...owner.auth.headers, 'content-type': 'application/json' },
  });
  t.ok(res.statusCode >= 400 && res.statusCode < 500, `answered ${res.statusCode}`);
});
