import t from 'tap';
import Hapi, { type ServerRoute } from '@hapi/hapi';
import Inert from '@hapi/inert';
import Joi from 'joi';
import { Validator } from '@seriousme/openapi-schema-validator';
import {
  buildOpenApiDocument,
  registerOpenApiRoutes,
  type DerivedRouteErrors,
  type JsonSchema,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiResponse,
} from '../../core/http/openapi.js';

/** These routes borrow real operationIds (getTicket, signup): the codes derived for the real ones stay out. */
const NOTHING_DERIVED: DerivedRouteErrors = { operations: {}, strategies: {} };

const TicketStatus = Joi.string().valid('new', 'open', 'waiting', 'closed');

const User = Joi.object({
  id: Joi.string().required(),
  email: Joi.string().email().required(),
  name: Joi.string().allow(null).required(),
}).id('User');

const Ticket = Joi.object({
  id: Joi.string().required().description('Ticket id'),
  subject: Joi.string().required(),
  status: TicketStatus.required(),
  assignee: User.allow(null).required(),
  labels: Joi.array().items(Joi.string()).required(),
  closed_at: Joi.date().iso().allow(null).required(),
}).id('Ticket');

const AuthContext = Joi.object({
  user: User.required(),
  org: Joi.object({ id: Joi.string().required(), name: Joi.string().required() }).required(),
  role: Joi.string().valid('owner', 'admin', 'reviewer', 'client_viewer').required(),
}).id('AuthContext');

async function testServer(): Promise<{ server: Hapi.Server; built: () => number }> {
  const server = Hapi.server();
  server.auth.scheme('test', () => ({
    authenticate: (_request, h) => h.authenticated({ credentials: { user: 'test' } }),
  }));
  server.auth.strategy('session', 'test');
  server.auth.strategy('job', 'test');
  server.auth.default('session');

  const ok = () => ({ ok: true });
  server.route([
    {
      method: 'GET',
      path: '/v1/tickets/{ticketId}',
      options: {
        id: 'getTicket',
        tags: ['tickets'],
        description: 'Read one ticket',
        notes: "Answers 404 for another organization's ticket.",
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
        validate: { params: Joi.object({ ticketId: Joi.string().required().description('The ticket') }) },
        response: { schema: Ticket },
        handler: ok,
      },
    },
    {
      method: 'GET',
      path: '/v1/tickets',
      options: {
        id: 'listTickets',
        tags: ['tickets'],
        description: 'List tickets',
        validate: {
          query: Joi.object({
            status: Joi.array().items(TicketStatus).single().description('Filter by status'),
            cursor: Joi.string(),
            limit: Joi.number().integer().min(1).max(200).default(50),
          }),
        },
        response: {
          schema: Joi.object({
            items: Joi.array().items(Ticket).required(),
            next_cursor: Joi.string().allow(null).required(),
          }),
        },
        handler: ok,
      },
    },
    {
      method: 'POST',
      path: '/v1/auth/signup',
      options: {
        id: 'signup',
        tags: ['auth'],
        description: 'Create an account and sign in',
        auth: false,
        validate: {
          payload: Joi.object({
            email: Joi.string().email().required(),
            password: Joi.string().min(12).required(),
            accept_terms: Joi.boolean().valid(true).required(),
            locale: Joi.string().valid('en', 'it').default('en'),
            org: Joi.object({
              name: Joi.string().required(),
              plan: Joi.string().valid('free', 'team', 'business').required(),
              channels: Joi.array()
                .items(Joi.string().valid('email', 'widget', 'codehost'))
                .min(1),
              website: Joi.string().uri().allow(null),
              settings: Joi.object().description('Free-form settings'),
              limits: Joi.object().pattern(Joi.string(), Joi.number().integer()),
            }).required(),
            referral_code: Joi.string().allow(null),
          }),
        },
        response: { status: { 201: AuthContext } },
        handler: ok,
      },
    },
    {
      method: 'GET',
      path: '/v1/me',
      options: {
        id: 'getMe',
        tags: ['me'],
        description: 'Who is signed in',
        response: { schema: AuthContext },
        handler: ok,
      },
    },
    {
      method: 'POST',
      path: '/v1/webhooks/email/{provider}',
      options: {
        id: 'receiveEmail',
        tags: ['email-webhooks'],
        description: 'Inbound email delivery',
        auth: false,
        payload: { parse: false, allow: ['message/rfc822', 'application/json'] },
        plugins: { patchwell: { rawBody: { contentType: 'message/rfc822' } } },
        validate: {
          params: Joi.object({ provider: Joi.string().valid('mime', 'ses').required() }),
          headers: Joi.object({
            'x-envelope-to': Joi.string().required(),
            'x-webhook-signature': Joi.string()
              .pattern(/^sha256=[0-9a-f]{64}$/)
              .required(),
            'content-type': Joi.string(),
          }).unknown(),
        },
        response: {
          status: {
            200: Joi.object({
              results: Joi.array()
                .items(
                  Joi.object({
                    recipient: Joi.string().required(),
                    status: Joi.string().valid('accepted', 'rejected').required(),
                    reason: Joi.string().allow(null),
                    ticket_id: Joi.string().allow(null),
                  }),
                )
                .required(),
            }),
          },
        },
        handler: ok,
      },
    },
    {
      method: 'POST',
      path: '/v1/jobs/{jobId}/heartbeat',
      options: {
        id: 'heartbeatJob',
        tags: ['jobs'],
        description: 'Keep a job lease',
        auth: { strategy: 'job' },
        validate: { params: Joi.object({ jobId: Joi.string().required() }) },
        plugins: { patchwell: { successStatus: 202 } },
        handler: (_r, h) => h.response().code(202),
      },
    },
    {
      method: 'POST',
      path: '/v1/widget/reports',
      options: {
        id: 'createWidgetReport',
        tags: ['widget'],
        description: 'A report from the widget',
        auth: false,
        plugins: { patchwell: { security: ['widgetKey'], successStatus: 201 } },
        validate: { payload: Joi.object({ email: Joi.string().email().required(), message: Joi.string().required() }) },
        response: { status: { 201: Joi.object({ ticket_id: Joi.string().required() }) } },
        handler: ok,
      },
    },
    {
      method: 'GET',
      path: '/v1/auth/sso/callback',
      options: {
        id: 'ssoCallback',
        tags: ['sso and security'],
        description: 'Finish single sign-on',
        auth: false,
        plugins: { patchwell: { successStatus: 303 } },
        handler: (_r, h) => h.redirect('/'),
      },
    },
    {
      method: 'GET',
      path: '/v1/public/status/{slug}/page',
      options: {
        id: 'getStatusPage',
        tags: ['public'],
        description: 'A status page',
        auth: false,
        plugins: { patchwell: { produces: 'text/html' } },
        handler: () => '<p>ok</p>',
      },
    },
    {
      method: 'GET',
      path: '/v1/files/{name?}',
      options: { id: 'getFile', tags: ['files'], description: 'A file', handler: ok },
    },
    { method: 'GET', path: '/internal/ping', options: { auth: false, handler: ok } },
  ]);

  let builds = 0;
  await registerOpenApiRoutes(server, () => {
    builds++;
    return buildOpenApiDocument(server, {
      title: 'Patchwell',
      version: '1.0.0',
      description: 'Support automation',
      serverUrl: 'http://127.0.0.1:3000/',
      tagDescriptions: { tickets: 'Tickets and their messages' },
      routeErrors: NOTHING_DERIVED,
    });
  });
  return { server, built: () => builds };
}

function op(doc: OpenApiDocument, method: 'get' | 'post', path: string): OpenApiOperation {
  const o = doc.paths[path]?.[method];
  if (!o) throw new Error(`no operation ${method} ${path}`);
  return o;
}

function content(o: OpenApiOperation, status: string, type = 'application/json'): JsonSchema | undefined {
  return (o.responses[status] as OpenApiResponse | undefined)?.content?.[type]?.schema;
}

t.test('a client reads the OpenAPI document and it is valid 3.1', async (t) => {
  const { server, built } = await testServer();
  const res = await server.inject('/v1/openapi.json');
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  const doc = JSON.parse(res.payload) as OpenApiDocument;

  const validator = new Validator();
  const result = await validator.validate(doc as unknown as Record<string, unknown>);
  if (!result.valid) t.comment(JSON.stringify(result.errors, null, 2));
  t.equal(result.valid, true, 'the document validates against the OpenAPI 3.1 schema');

  t.equal(doc.openapi, '3.1.0');
  t.equal(doc.info.version, '1.0.0');
  t.equal(doc.info.title, 'Patchwell');
  t.same(doc.servers, [{ url: 'http://127.0.0.1:3000', description: 'This service (PUBLIC_BASE_URL)' }]);

  const ids = Object.values(doc.paths)
    .flatMap((item) => Object.values(item).map((o) => o.operationId))
    .sort();
  t.same(ids, [
    'createWidgetReport',
    'getFile',
    'getFileWithoutName',
    'getMe',
    'getOpenApiDocument',
    'getStatusPage',
    'getTicket',
    'heartbeatJob',
    'listTickets',
    'receiveEmail',
    'signup',
    'ssoCallback',
  ]);
  t.notOk(doc.paths['/internal/ping'], 'a route without id is left out');
  t.notOk(
    Object.keys(doc.paths).some((p) => p.startsWith('/docs')),
    'the docs page is left out',
  );
  t.same(Object.keys(doc.paths), [...Object.keys(doc.paths)].sort(), 'paths are sorted');

  t.same(op(doc, 'get', '/v1/tickets/{ticketId}').tags, ['tickets']);
  t.same(op(doc, 'get', '/v1/auth/sso/callback').tags, ['sso and security']);
  t.same(op(doc, 'get', '/v1/openapi.json').tags, ['openapi']);
  t.same(
    doc.tags.map((tag) => tag.name),
    ['auth', 'email-webhooks', 'files', 'jobs', 'me', 'openapi', 'public', 'sso and security', 'tickets', 'widget'],
  );
  t.same(
    doc.tags.find((tag) => tag.name === 'tickets'),
    { name: 'tickets', description: 'Tickets and their messages' },
    "the caller's description wins",
  );
  t.match(
    doc.tags.find((tag) => tag.name === 'auth'),
    { description: /Sign-up, sign-in/ },
    'a spec section has its own line',
  );
  t.same(
    doc.tags.filter((tag) => !tag.description).map((tag) => tag.name),
    [],
    'every section has a line',
  );

  const getTicket = op(doc, 'get', '/v1/tickets/{ticketId}');
  t.equal(getTicket.summary, 'Read one ticket');
  t.equal(
    getTicket.description,
    "Answers 404 for another organization's ticket.\n\nAccess: a dashboard session or an API token. Roles: owner, admin.",
  );
  t.equal(
    op(doc, 'post', '/v1/auth/signup').description,
    'Access: public, no credentials.',
    'every operation says who may call it',
  );
  t.equal(op(doc, 'post', '/v1/jobs/{jobId}/heartbeat').description, "Access: the job's job token or agent token.");
  t.same(getTicket.parameters, [
    { name: 'ticketId', in: 'path', required: true, description: 'The ticket', schema: { type: 'string' } },
  ]);

  t.equal(built(), 1);
  await server.inject('/v1/openapi.json');
  t.equal(built(), 1, 'the document is built once, then cached');

  const etag = res.headers.etag as string;
  t.ok(etag, 'answers an ETag');
  const again = await server.inject({ url: '/v1/openapi.json', headers: { 'if-none-match': etag } });
  t.equal(again.statusCode, 304);
});

t.test('shared schemas appear once and are referenced', async (t) => {
  const { server } = await testServer();
  const doc = JSON.parse((await server.inject('/v1/openapi.json')).payload) as OpenApiDocument;
  const schemas = doc.components.schemas;
  t.same(Object.keys(schemas), ['AuthContext', 'Error', 'Ticket', 'User', 'ValidationError']);

  t.same(content(op(doc, 'get', '/v1/tickets/{ticketId}'), '200'), { $ref: '#/components/schemas/Ticket' });
  t.same(content(op(doc, 'get', '/v1/tickets'), '200'), {
    type: 'object',
    properties: {
      items: { type: 'array', items: { $ref: '#/components/schemas/Ticket' } },
      next_cursor: { type: ['string', 'null'] },
    },
    required: ['items', 'next_cursor'],
    additionalProperties: false,
  });
  t.same(content(op(doc, 'post', '/v1/auth/signup'), '201'), { $ref: '#/components/schemas/AuthContext' });
  t.same(content(op(doc, 'get', '/v1/me'), '200'), { $ref: '#/components/schemas/AuthContext' });

  const ticket = schemas.Ticket as { properties: Record<string, JsonSchema> };
  t.same(
    ticket.properties.assignee,
    { anyOf: [{ $ref: '#/components/schemas/User' }, { type: 'null' }] },
    'a nullable shared schema',
  );
  t.same(ticket.properties.closed_at, { type: ['string', 'null'], format: 'date-time' });
  t.same(ticket.properties.status, { type: 'string', enum: ['new', 'open', 'waiting', 'closed'] });
  t.same((schemas.AuthContext as { properties: Record<string, JsonSchema> }).properties.user, {
    $ref: '#/components/schemas/User',
  });
  t.same((schemas.User as { properties: Record<string, JsonSchema> }).properties.name, { type: ['string', 'null'] });

  t.notMatch(JSON.stringify(doc), /"nullable"/, 'never nullable: true');
});

t.test('request bodies, parameters and responses', async (t) => {
  const { server } = await testServer();
  const doc = JSON.parse((await server.inject('/v1/openapi.json')).payload) as OpenApiDocument;

  const signup = op(doc, 'post', '/v1/auth/signup');
  t.same(
    Object.keys(signup.responses),
    ['201', '400', '403', '413', '415', '500'],
    'public: no 401; 403 is the Origin check of an unsafe method; no path id, no 404',
  );
  t.equal(signup.requestBody?.required, true);
  const body = signup.requestBody?.content['application/json']?.schema as {
    properties: Record<string, { properties: Record<string, unknown> } & JsonSchema>;
    required: string[];
  };
  t.same(body.required, ['email', 'password', 'accept_terms', 'org']);
  t.same(body.properties.locale, { type: 'string', default: 'en', enum: ['en', 'it'] });
  t.same(body.properties.referral_code, { type: ['string', 'null'] });
  const org = body.properties.org;
  t.same(org.required, ['name', 'plan']);
  t.same(org.properties.plan, { type: 'string', enum: ['free', 'team', 'business'] });
  t.same(org.properties.channels, {
    type: 'array',
    minItems: 1,
    items: { type: 'string', enum: ['email', 'widget', 'codehost'] },
  });
  t.same(org.properties.website, { type: ['string', 'null'], format: 'uri' });
  t.same(
    org.properties.settings,
    { type: 'object', description: 'Free-form settings', additionalProperties: true },
    'Joi.object() accepts any keys',
  );
  t.same(org.properties.limits, { type: 'object', additionalProperties: { type: 'integer' } }, 'a map');

  const list = op(doc, 'get', '/v1/tickets');
  t.same(list.parameters, [
    {
      name: 'status',
      in: 'query',
      required: false,
      description: 'Filter by status',
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'string', enum: ['new', 'open', 'waiting', 'closed'] } },
    },
    { name: 'cursor', in: 'query', required: false, schema: { type: 'string' } },
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer', default: 50, minimum: 1, maximum: 200 } },
  ]);
  t.same(list.responses['401'], { $ref: '#/components/responses/Unauthenticated' });
  t.notOk(list.responses['403'], 'a read without roles: 403 only if its code gives one');
  t.same(
    op(doc, 'get', '/v1/tickets/{ticketId}').responses['403'],
    { $ref: '#/components/responses/Forbidden' },
    'role-gated',
  );
  t.notOk(list.responses['413'], 'no 413 without a body');

  const email = op(doc, 'post', '/v1/webhooks/email/{provider}');
  t.same(Object.keys(email.requestBody?.content ?? {}), ['message/rfc822']);
  t.same(email.requestBody?.content['message/rfc822']?.schema, {
    type: 'string',
    description: 'The raw message/rfc822 body',
  });
  t.same(
    email.parameters?.map((p) => `${p.in}:${p.name}:${p.required}`),
    ['path:provider:true', 'header:x-envelope-to:true', 'header:x-webhook-signature:true'],
  );
  t.same(email.parameters?.[0]?.schema, { type: 'string', enum: ['mime', 'ses'] });

  const heartbeat = op(doc, 'post', '/v1/jobs/{jobId}/heartbeat');
  t.same(content(heartbeat, '202'), { type: 'object' }, 'success status from plugins.patchwell, generic schema');
  t.notOk(heartbeat.responses['200']);

  const sso = op(doc, 'get', '/v1/auth/sso/callback');
  t.same(Object.keys(sso.responses), ['200', '303', '400', '500']);
  t.ok((sso.responses['303'] as OpenApiResponse).headers?.Location);
  t.notOk((sso.responses['303'] as OpenApiResponse).content);
  t.match(
    (sso.responses['200'] as OpenApiResponse).description,
    /^No fields, as the spec gives this answer: the service redirects \(303, Location\)/,
    'a redirecting GET, as the spec describes it',
  );
  t.notOk((sso.responses['200'] as OpenApiResponse).content);

  t.same(content(op(doc, 'get', '/v1/public/status/{slug}/page'), '200', 'text/html'), { type: 'string' });

  t.same(
    op(doc, 'get', '/v1/files/{name}').parameters?.map((p) => p.name),
    ['name'],
  );
  t.same(op(doc, 'get', '/v1/files').parameters, undefined);

  const errors = doc.components.responses;
  t.same(
    Object.keys(errors),
    [
      'BadRequest',
      'Unauthenticated',
      'Forbidden',
      'NotFound',
      'PayloadTooLarge',
      'UnsupportedMediaType',
      'InternalError',
    ],
    'the shared answers some operation uses',
  );
  t.same(errors.NotFound?.content?.['application/json']?.schema, { $ref: '#/components/schemas/Error' });
  t.same(errors.BadRequest?.content?.['application/json']?.schema, { $ref: '#/components/schemas/ValidationError' });
  t.match(
    errors.BadRequest?.content?.['application/json']?.example,
    { code: 'invalid_request', details: { errors: [{ path: 'payload.email' }] } },
    'its example has the details it requires',
  );
  t.same((doc.components.schemas.Error as { required: string[] }).required, ['statusCode', 'error', 'message', 'code']);
});

t.test('security follows auth and plugins.patchwell.security', async (t) => {
  const { server } = await testServer();
  const doc = JSON.parse((await server.inject('/v1/openapi.json')).payload) as OpenApiDocument;
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['bearer', 'jobToken', 'session', 'widgetKey']);
  t.same(doc.components.securitySchemes.session, {
    type: 'apiKey',
    in: 'cookie',
    name: 'pw_session',
    description: 'Dashboard session cookie (set by the sign-in operations)',
  });
  t.match(doc.components.securitySchemes.widgetKey, { type: 'apiKey', in: 'header', name: 'X-Widget-Key' });

  t.same(
    op(doc, 'get', '/v1/tickets/{ticketId}').security,
    [{ session: [] }, { bearer: [] }],
    'default: session cookie or API token',
  );
  t.same(op(doc, 'get', '/v1/me').security, [{ session: [] }, { bearer: [] }]);
  t.same(op(doc, 'post', '/v1/auth/signup').security, [], 'auth: false');
  t.same(op(doc, 'get', '/v1/openapi.json').security, []);
  t.same(op(doc, 'post', '/v1/webhooks/email/{provider}').security, []);
  t.same(op(doc, 'post', '/v1/jobs/{jobId}/heartbeat').security, [{ jobToken: [] }], 'the job strategy');
  const widget = op(doc, 'post', '/v1/widget/reports');
  t.same(widget.security, [{ widgetKey: [] }], 'declared in plugins.patchwell.security');
  t.ok(widget.responses['401'], 'a widget key can be refused');
});

t.test('the document is deterministic and built fresh on each call', async (t) => {
  const { server } = await testServer();
  const a = buildOpenApiDocument(server, { title: 'Patchwell', version: '1.0.0' });
  const b = buildOpenApiDocument(server, { title: 'Patchwell', version: '1.0.0' });
  t.not(a, b);
  t.equal(JSON.stringify(a), JSON.stringify(b));
  t.notOk(a.servers);
});

/** GET /v1/<name> (operation `name`, anonymous) answering `schema`. */
const getRoute = (name: string, schema: Joi.Schema): ServerRoute => ({
  method: 'GET',
  path: `/v1/${name}`,
  options: { id: name, tags: ['x'], auth: false, response: { schema }, handler: () => ({}) },
});

t.test('two different schemas under one id are refused', (t) => {
  const server = Hapi.server();
  server.route([
    getRoute('a', Joi.object({ a: Joi.string() }).id('Thing')),
    getRoute('b', Joi.object({ b: Joi.number() }).id('Thing')),
  ]);
  t.throws(
    () => buildOpenApiDocument(server, { title: 'x', version: '1.0.0' }),
    /two different schemas carry the id "Thing"/,
  );
  t.end();
});

t.test('a developer opens /docs and the page loads from the service itself', async (t) => {
  const { server } = await testServer();
  const page = await server.inject('/docs');
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], /^text\/html/);
  t.match(page.payload, /<title>Patchwell API<\/title>/);
  t.match(page.payload, /src="\/docs\/assets\/swagger-ui-bundle\.js"/);
  t.match(page.payload, /href="\/docs\/assets\/swagger-ui\.css"/);
  t.notMatch(page.payload, /https?:\/\//, 'no CDN');

  const init = await server.inject('/docs/assets/swagger-initializer.js');
  t.equal(init.statusCode, 200);
  t.match(init.payload, /url: '\/v1\/openapi\.json'/);
  t.notMatch(init.payload, /petstore/);

  const bundle = await server.inject('/docs/assets/swagger-ui-bundle.js');
  t.equal(bundle.statusCode, 200);
  t.match(bundle.headers['content-type'], /javascript/);
  t.ok(bundle.payload.length > 100_000);
  const css = await server.inject('/docs/assets/swagger-ui.css');
  t.equal(css.statusCode, 200);

  t.equal((await server.inject('/docs/assets/nope.js')).statusCode, 404);
  t.equal((await server.inject('/docs/assets/../package.json')).statusCode, 404);
});

t.test('inert registered beforehand is reused', async (t) => {
  const server = Hapi.server();
  await server.register(Inert);
  await registerOpenApiRoutes(server, () => buildOpenApiDocument(server, { title: 'x', version: '1.0.0' }));
  t.equal((await server.inject('/docs/assets/swagger-ui.css')).statusCode, 200);
  t.equal((await server.inject('/v1/openapi.json')).statusCode, 200);
});

t.test('a shared schema keeps its definition; use sites add their own notes', async (t) => {
  const server = Hapi.server();
  const handler = () => ({});
  const Person = Joi.object({ id: Joi.string().required() }).id('Person').description('A person');
  server.route([
    getRoute('a', Joi.object({ p: Person, q: Joi.alternatives(Person, null) })),
    getRoute('b', Joi.object({ owner: Person.description('The owner') })),
    {
      method: 'POST',
      path: '/v1/c',
      options: {
        id: 'c',
        tags: ['x'],
        auth: false,
        validate: { payload: Joi.object({ a: Joi.string() }).optional() },
        handler,
      },
    },
  ]);
  const doc = buildOpenApiDocument(server, { title: 'x', version: '1.0.0' });
  t.same(doc.components.schemas.Person, {
    type: 'object',
    description: 'A person',
    properties: { id: { type: 'string' } },
    required: ['id'],
    additionalProperties: false,
  });
  const a = content(op(doc, 'get', '/v1/a'), '200') as { properties: Record<string, unknown> };
  t.same(a.properties.q, { anyOf: [{ $ref: '#/components/schemas/Person' }, { const: null }] });
  const b = content(op(doc, 'get', '/v1/b'), '200') as { properties: Record<string, unknown> };
  t.same(b.properties.owner, { $ref: '#/components/schemas/Person', description: 'The owner' });
  t.equal(op(doc, 'post', '/v1/c').requestBody?.required, false, 'an .optional() payload');
  const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
  t.equal(result.valid, true);
});

t.test('an operation lists every error its code can give, with the codes', async (t) => {
  const server = Hapi.server();
  server.auth.scheme('test', () => ({
    authenticate: (_request, h) => h.authenticated({ credentials: { user: 'test' } }),
  }));
  server.auth.strategy('session', 'test');
  server.auth.default('session');
  const handler = () => ({});
  server.route([
    {
      method: 'POST',
      path: '/v1/error-groups/{id}/ticket',
      options: {
        id: 'openGroupTicket',
        tags: ['error-groups'],
        description: 'Opens a ticket for a group',
        handler,
        plugins: { patchwell: { roles: ['owner', 'admin'] } },
      },
    },
    {
      method: 'POST',
      path: '/v1/drafts/{id}/send',
      options: {
        id: 'sendDraft',
        tags: ['tickets'],
        description: 'Sends a draft',
        handler,
        validate: { payload: Joi.object({ body_md: Joi.string() }) },
        // What the walk cannot see, declared by the route.
        plugins: { patchwell: { errors: [{ status: 409, code: 'white_label_not_ready' }] } },
      },
    },
    {
      method: 'GET',
      path: '/v1/ping',
      options: { id: 'ping', tags: ['health'], description: 'Ping', auth: false, handler },
    },
  ]);
  const derived: DerivedRouteErrors = {
    operations: {
      openGroupTicket: [
        { status: 400, code: 'invalid_token' },
        { status: 402, code: 'plan_limit_reached' },
        { status: 409, code: 'group_not_watching' },
        { status: 422, code: 'no_repository' },
        { status: 429, code: 'rate_limited' },
      ],
      sendDraft: [
        { status: 404, code: 'not_found' },
        { status: 409, code: 'invalid_transition' },
      ],
      ping: [],
    },
    strategies: { session: [{ status: 401, code: 'session_expired' }] },
  };
  const doc = buildOpenApiDocument(server, { title: 'x', version: '1.0.0', routeErrors: derived });

  const open = op(doc, 'post', '/v1/error-groups/{id}/ticket');
  t.same(Object.keys(open.responses), ['200', '400', '401', '402', '403', '404', '409', '422', '429', '500']);
  const conflict = open.responses['409'] as OpenApiResponse;
  t.equal(conflict.description, 'Conflict: `group_not_watching`');
  const coded = (...codes: string[]) => ({
    allOf: [
      { $ref: '#/components/schemas/Error' },
      { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } },
    ],
  });
  t.same(content(open, '409'), coded('group_not_watching'));
  t.same(conflict.content?.['application/json']?.example, {
    statusCode: 409,
    error: 'Conflict',
    message: 'Conflict (group_not_watching)',
    code: 'group_not_watching',
  });
  t.same(content(open, '402'), coded('plan_limit_reached'));
  t.same(
    content(open, '400'),
    { anyOf: [{ $ref: '#/components/schemas/ValidationError' }, coded('invalid_token')] },
    "400: the field list of invalid_request beside the operation's own 400 codes",
  );
  t.same(content(open, '401'), coded('session_expired', 'unauthenticated'), "what the auth strategy's resolvers throw");
  t.same(
    open.responses['429'],
    { $ref: '#/components/responses/RateLimited' },
    'a standard code alone: the shared answer',
  );
  t.same(open.responses['403'], { $ref: '#/components/responses/Forbidden' });

  const send = op(doc, 'post', '/v1/drafts/{id}/send');
  t.same(Object.keys(send.responses), ['200', '400', '401', '403', '404', '409', '413', '415', '500']);
  t.equal(
    (send.responses['409'] as OpenApiResponse).description,
    'Conflict: `invalid_transition`, `white_label_not_ready`',
    'derived and declared together',
  );

  t.same(Object.keys(op(doc, 'get', '/v1/ping').responses), ['200', '400', '500'], 'a public read without parameters');
  t.ok(doc.components.responses.RateLimited?.headers?.['Retry-After']);

  const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
  if (!result.valid) t.comment(JSON.stringify(result.errors, null, 2));
  t.equal(result.valid, true);
});

t.test('an operation beyond the spec is marked as an extension, with its reason', (t) => {
  const server = Hapi.server();
  const handler = () => ({});
  server.route([
    {
      method: 'GET',
      path: '/v1/a',
      options: { id: 'a', tags: ['x'], description: 'In the spec', auth: false, handler },
    },
    {
      method: 'GET',
      path: '/v1/b',
      options: {
        id: 'b',
        tags: ['x'],
        description: 'Not in it',
        notes: 'Newest first.',
        auth: false,
        handler,
        plugins: { patchwell: { extension: 'Staff review the requests the spec lets people send' } },
      },
    },
  ]);
  const doc = buildOpenApiDocument(server, { title: 'x', version: '1.0.0', routeErrors: NOTHING_DERIVED });
  t.notOk(op(doc, 'get', '/v1/a')['x-extension']);
  const b = op(doc, 'get', '/v1/b');
  t.equal(b['x-extension'], true);
  t.equal(
    b.description,
    'Newest first.\n\nExtension (not in the spec): Staff review the requests the spec lets people send\n\n' +
      'Access: public, no credentials.',
  );
  t.end();
});
