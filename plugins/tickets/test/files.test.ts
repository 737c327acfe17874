import t from 'tap';
import type { OpenApiDocument } from '../../../core/http/openapi-types.js';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import type { FileLinks } from '../services/file-links.js';
import { call, newWorkspace, openTicket, world, type ApiError } from './helpers.js';

/** The error code of a refusal read from a raw answer. */
const codeOf = (payload: string) => (JSON.parse(payload) as ApiError).code;

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

t.test('files: attachments and screenshots by session or by a signed link', async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;
  const links = app.container.resolve<FileLinks>('fileLinks');

  const tk = await openTicket(app, orgId, workspace.id, {
    origin: 'widget',
    message: {
      from: 'jane.doe@example.com',
      bodyText: 'The page is blank, see the screenshot',
      widgetContext: {
        console: [{ level: 'error', message: 'TypeError: x is undefined', timestamp: '2026-01-01T10:00:00Z' }],
        network: [
          {
            method: 'GET',
            url: 'https://shop.example/api/cart',
            status: 500,
            duration_ms: 120.5,
            timestamp: '2026-01-01T10:00:00Z',
          },
        ],
        browser: { user_agent: 'Mozilla/5.0', name: 'Firefox', viewport: { width: 1280, height: 720 } },
        url: 'https://shop.example/cart',
        release: '1.4.2',
      },
      screenshot: { filename: 'screenshot.png', contentType: 'image/png', content: PNG },
      attachments: [
        { filename: 'réçu "final".pdf', contentType: 'application/pdf', content: Buffer.from('%PDF-1.4 fake') },
      ],
    },
  });

  const detail = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
  t.equal(detail.status, 200, detail.payload);
  const message = detail.body.messages[0];
  t.equal(message.attachments.length, 1);
  const att = message.attachments[0];
  t.match(att, { filename: 'réçu final.pdf', content_type: 'application/pdf', size: 13 });
  t.match(att.url, /^http:\/\/localhost:3000\/v1\/files\/file_[a-z0-9]+\?exp=\d+&sig=[A-Za-z0-9_-]+$/);
  const context = message.widget_context;
  t.match(context, {
    console: [{ level: 'error' }],
    network: [{ status: 500 }],
    url: 'https://shop.example/cart',
    release: '1.4.2',
  });
  if (!context?.screenshot_url) throw new Error(`no screenshot_url in the widget context: ${detail.payload}`);
  const screenshotUrl = context.screenshot_url;
  t.match(screenshotUrl, /\/v1\/files\/file_[a-z0-9]+\?exp=/);
  t.notOk('screenshot_file_id' in context);

  await t.test('a signed link works without a session', async (t) => {
    const url = new URL(att.url);
    const res = await app.server.inject(url.pathname + url.search);
    t.equal(res.statusCode, 200);
    t.equal(res.rawPayload.toString(), '%PDF-1.4 fake');
    t.equal(res.headers['content-type'], 'application/pdf');
    t.match(
      String(res.headers['content-disposition']),
      /^attachment; filename="r__u final.pdf"; filename\*=UTF-8''r%C3%A9%C3%A7u%20final.pdf$/,
    );
    t.equal(res.headers['x-content-type-options'], 'nosniff');
    const shot = new URL(screenshotUrl);
    const img = await app.server.inject(shot.pathname + shot.search);
    t.equal(img.statusCode, 200);
    t.ok(img.rawPayload.equals(PNG));
    t.match(String(img.headers['content-disposition']), /^inline;/);
  });

  await t.test('a tampered, expired or missing signature is refused', async (t) => {
    const url = new URL(att.url);
    const id = url.pathname.split('/').pop()!;
    const tampered = await app.server.inject(
      `${url.pathname}?exp=${Number(url.searchParams.get('exp')) + 300}&sig=${url.searchParams.get('sig')}`,
    );
    t.equal(tampered.statusCode, 403);
    t.equal(codeOf(tampered.payload), 'invalid_link');
    const old = new URL(links.url(id, Date.now() - 3 * 3600_000));
    const expired = await app.server.inject(old.pathname + old.search);
    t.equal(expired.statusCode, 403);
    t.equal(codeOf(expired.payload), 'link_expired');
    const bare = await app.server.inject(url.pathname);
    t.equal(bare.statusCode, 401);
    t.equal((await app.server.inject(`${url.pathname}?exp=1`)).statusCode, 400, 'exp without sig');
    const otherFile = new URL(links.url('file_other'));
    t.equal(
      (
        await app.server.inject(
          `${url.pathname}?exp=${otherFile.searchParams.get('exp')}&sig=${otherFile.searchParams.get('sig')}`,
        )
      ).statusCode,
      403,
      'a signature is bound to its file',
    );
  });

  await t.test('a session opens files of the workspaces it can open; another organization gets 404', async (t) => {
    const path = new URL(att.url).pathname;
    const own = await app.server.inject({ url: path, ...owner.auth });
    t.equal(own.statusCode, 200);
    const stranger = await signUp(app, { orgName: 'Rival' });
    const res = await app.server.inject({ url: path, ...stranger.auth });
    t.equal(res.statusCode, 404);
    t.equal(codeOf(res.payload), 'not_found');
    const other = await newWorkspace(app, owner, 'Elsewhere');
    const limited = await addMember(app, owner, { role: 'reviewer', workspaceIds: [other.id] });
    t.equal((await app.server.inject({ url: path, ...limited.auth })).statusCode, 403);
    t.equal((await call(app, owner, 'GET', '/v1/files/file_nope')).status, 404);
  });

  await t.test('the operation is documented under the files tag; the status page is not an operation', async (t) => {
    const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload) as OpenApiDocument;
    t.equal(doc.paths['/v1/files/{id}']?.get?.operationId, 'getFile');
    t.same(doc.paths['/v1/files/{id}'].get?.tags, ['files']);
    t.notOk(
      Object.keys(doc.paths).some((p) => p.startsWith('/status')),
      'no /status path in the document',
    );
    const ops = Object.values(doc.paths)
      .flatMap((p) => Object.values(p))
      .filter((o) => o.tags?.[0] === 'tickets' || o.tags?.[0] === 'files' || o.tags?.[0] === 'workspaces');
    const documented = new Set(ops.map((o) => o.operationId));
    for (const id of [
      'addTicketSubscriber',
      'archiveWorkspace',
      'assignTicket',
      'closeTicket',
      'createTicketDraft',
      'createTicketNote',
      'createWorkspace',
      'deleteTicketSubscriber',
      'discardTicketDraft',
      'escalateTicket',
      'getFile',
      'getTicket',
      'getWorkspace',
      'listTicketSubscribers',
      'listTickets',
      'listWorkspaces',
      'reopenTicket',
      'sendTicketDraft',
      'updateTicketDraft',
      'updateTicketStatusLink',
      'updateWorkspace',
    ])
      t.ok(documented.has(id), `${id} is documented`);
  });
});
