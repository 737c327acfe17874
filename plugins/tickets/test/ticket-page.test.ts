import { Validator } from '@seriousme/openapi-schema-validator';
import t from 'tap';
import { newId } from '../../../core/data/ids.js';
import { countQueries } from '../../../test/helpers/queries.js';
import { addMember, signUp } from '../../../test/helpers/accounts.js';
import type { TicketService } from '../services/ticket-service.js';
import { call, openTicket, world } from './helpers.js';

/** The parts of the OpenAPI document the test reads. */
interface SchemaObject {
  description?: string;
  $ref?: string;
  anyOf?: SchemaObject[];
  required?: string[];
  properties?: Record<string, SchemaObject>;
}
// (a type, not an interface: the validator takes a plain record)
type OpenApiDocument = {
  components: { schemas: Record<string, SchemaObject> };
  paths: Record<string, Record<string, { operationId?: string; 'x-extension'?: boolean }>>;
};

t.test('the ticket page (fix loop off in this service)', async (t) => {
  const { app, owner, workspace } = await world(t);
  const orgId = owner.organization.id;

  await t.test('drafts and audit are read, the fix keys are null', async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);

    const fresh = await call(app, owner, 'GET', `/v1/tickets/${tk.id}`);
    t.equal(fresh.status, 200, fresh.payload);
    t.match(
      fresh.body,
      {
        id: tk.id,
        diagnosis: null,
        fixes: null,
        release: null,
        jobs: null,
        drafts: { items: [], next_cursor: null, total: 0 },
        audit: [],
      },
      'fixes is off in this service: its keys are null, the drafts and audit are empty lists',
    );

    // A team-written draft, discarded with a reason, then a second one: the page shows both, newest first.
    const first = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, {
      kind: 'reply',
      body_md: 'First try',
      public_summary: 'We look into it',
    });
    t.equal(first.status, 201, first.payload);
    t.match(first.body, {
      public_summary: 'We look into it',
      created_by_user_id: owner.user.id,
      discarded_at: null,
      discard_reason: null,
    });
    const discarded = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts/${first.body.id}/discard`, {
      reason: 'Wrong tone',
    });
    t.equal(discarded.status, 200, discarded.payload);
    t.match(
      discarded.body.drafts,
      { total: 1, items: [{ id: first.body.id, status: 'discarded', discard_reason: 'Wrong tone' }] },
      'an operation answering a Ticket carries the page too',
    );
    const second = await call(app, owner, 'POST', `/v1/tickets/${tk.id}/drafts`, {
      kind: 'needs_info',
      body_md: 'Which browser?',
    });
    t.equal(
      (await call(app, owner, 'POST', `/v1/tickets/${tk.id}/assign`, { assignee_user_id: owner.user.id })).status,
      200,
    );

    const page = (await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body;
    t.match(page.drafts, {
      total: 2,
      next_cursor: null,
      items: [
        { id: second.body.id, status: 'draft', kind: 'needs_info' },
        { id: first.body.id, status: 'discarded' },
      ],
    });
    t.match(
      page.audit,
      [
        {
          action: 'ticket.assigned',
          actor: { type: 'user', id: owner.user.id, email: owner.user.email },
          target: { type: 'ticket', id: tk.id },
        },
        {
          action: 'ticket.draft_discarded',
          target: { type: 'draft', id: first.body.id },
          metadata: { reason: 'Wrong tone' },
          changes: { status: { before: 'draft', after: 'discarded' } },
        },
      ],
      "the ticket's entries and its drafts', newest first",
    );
    const [newest] = page.audit!; // matched above
    t.notOk('ip' in newest || 'user_agent' in newest, 'no IP address or user agent on the page');

    // Another ticket's entries stay on that ticket.
    const other = await openTicket(app, orgId, workspace.id);
    await call(app, owner, 'POST', `/v1/tickets/${other.id}/assign`, { assignee_user_id: owner.user.id });
    t.equal((await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body.audit?.length, 2);

    // The list keeps its item shape: the page belongs to the detail.
    const list = await call(app, owner, 'GET', `/v1/tickets?workspace_id=${workspace.id}`);
    t.equal(list.status, 200);
    for (const key of ['drafts', 'audit', 'diagnosis', 'fixes', 'release', 'jobs', 'messages'])
      t.notOk(key in list.body.items[0], `no ${key} in the list`);
  });

  await t.test("drafts beyond the page: GET /v1/tickets/{id}/drafts continues at the page's cursor", async (t) => {
    const tk = await openTicket(app, orgId, workspace.id);
    // 53 discarded drafts written over the last hour, one a minute (direct rows: the API keeps one open draft at a time).
    const start = Date.now() - 3_600_000;
    const rows = Array.from({ length: 53 }, (_, i) => ({
      id: newId('drf'),
      org_id: orgId,
      ticket_id: tk.id,
      kind: 'reply',
      body_md: `Draft ${i}`,
      status: 'discarded',
      language: 'en',
      created_at: new Date(start + i * 60_000),
      updated_at: new Date(start + i * 60_000),
    }));
    await app.db('ticket_drafts').insert(rows);

    const page = (await call(app, owner, 'GET', `/v1/tickets/${tk.id}`)).body;
    t.equal(page.drafts.total, 53);
    t.equal(page.drafts.items.length, 50, 'the page carries 50');
    t.equal(page.drafts.items[0].body_md, 'Draft 52', 'newest first');
    t.ok(page.drafts.next_cursor);
    const rest = await call(app, owner, 'GET', `/v1/tickets/${tk.id}/drafts?cursor=${page.drafts.next_cursor}`);
    t.equal(rest.status, 200, rest.payload);
    t.same(
      rest.body.items.map((d) => d.body_md),
      ['Draft 2', 'Draft 1', 'Draft 0'],
      'the list goes on where the page stopped',
    );
    t.equal(rest.body.next_cursor, null);

    const small = await call(app, owner, 'GET', `/v1/tickets/${tk.id}/drafts?limit=20`);
    t.equal(small.body.items.length, 20);
    const next = await call(app, owner, 'GET', `/v1/tickets/${tk.id}/drafts?limit=20&cursor=${small.body.next_cursor}`);
    t.equal(next.body.items[0].body_md, 'Draft 32', 'keyset: no row repeated or skipped');
    t.equal((await call(app, owner, 'GET', `/v1/tickets/${tk.id}/drafts?cursor=not-a-cursor`)).status, 400);

    const stranger = await signUp(app, { orgName: 'Elsewhere' });
    t.equal((await call(app, stranger, 'GET', `/v1/tickets/${tk.id}/drafts`)).status, 404, 'another organization: 404');
    const viewer = await addMember(app, owner, { role: 'client_viewer', workspaceIds: [workspace.id] });
    t.equal(
      (await call(app, viewer, 'GET', `/v1/tickets/${tk.id}/drafts`)).status,
      200,
      'whoever opens the ticket reads its drafts',
    );
  });

  await t.test('one read for the page: the number of queries does not grow with messages or drafts', async (t) => {
    const tickets = app.container.resolve<TicketService>('ticketService');
    const small = await openTicket(app, orgId, workspace.id);
    const big = await openTicket(app, orgId, workspace.id);
    for (let i = 0; i < 30; i++) {
      const message = { orgId, ticketId: big.id, from: 'jane.doe@example.com', bodyText: `More detail ${i}` };
      await app.db.transaction((trx) => tickets.addInboundMessage(trx, message));
    }
    await app.db('ticket_drafts').insert(
      Array.from({ length: 12 }, (_, i) => ({
        id: newId('drf'),
        org_id: orgId,
        ticket_id: big.id,
        kind: 'reply',
        body_md: `D${i}`,
        status: 'discarded',
        language: 'en',
      })),
    );
    await call(app, owner, 'GET', `/v1/tickets/${small.id}`); // warm: the page's sections are read from the container once

    const a = await countQueries(app, () => call(app, owner, 'GET', `/v1/tickets/${small.id}`));
    const b = await countQueries(app, () => call(app, owner, 'GET', `/v1/tickets/${big.id}`));
    t.equal(b.result.body.messages.length, 31);
    t.equal(b.result.body.drafts.total, 12);
    t.equal(
      b.queries,
      a.queries,
      `the same number of queries (${a.queries}) for 1 message and for 31 messages with 12 drafts`,
    );
  });

  await t.test('the OpenAPI document describes every field of the page', async (t) => {
    const doc = JSON.parse((await app.server.inject('/v1/openapi.json')).payload) as OpenApiDocument;
    const schemas = doc.components.schemas;
    const components = [
      'TicketDiagnosis',
      'CodeReference',
      'TicketDraftList',
      'TicketFixAttempt',
      'FixApproval',
      'FixPullRequest',
      'FixDiffLink',
      'TicketRelease',
      'TicketJob',
      'TicketJobList',
      'TicketAuditEntry',
      'DraftPage',
    ];
    for (const name of components) {
      t.ok(schemas[name], `component ${name}`);
    }
    const { required = [], properties = {} } = schemas.Ticket;
    for (const key of ['diagnosis', 'drafts', 'fixes', 'release', 'audit', 'jobs']) {
      t.ok(required.includes(key), `${key} is always present`);
      const prop = properties[key];
      const ref = prop.$ref ?? prop.anyOf?.[0]?.$ref;
      t.ok(prop.description ?? (ref && schemas[ref.split('/').pop()!].description), `${key} is described`);
    }
    t.ok(doc.paths['/v1/tickets/{id}/drafts'].get, 'GET /v1/tickets/{id}/drafts');
    t.equal(doc.paths['/v1/tickets/{id}/drafts'].get.operationId, 'listTicketDrafts');
    t.equal(doc.paths['/v1/tickets/{id}/drafts'].get['x-extension'], true, 'marked as beyond the spec');
    const result = await new Validator().validate(doc);
    if (!result.valid) t.comment(JSON.stringify(result.errors).slice(0, 2000));
    t.equal(result.valid, true, 'the document is valid OpenAPI 3.1');
  });
});
