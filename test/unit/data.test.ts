import t from 'tap';
import { Model } from 'objection';
import { createTestDb } from '../helpers/db.js';
import { TenantModel, TenancyError } from '../../core/data/model.js';
import { paginate, encodeCursor } from '../../core/http/pagination.js';
import { RateLimiter } from '../../core/http/rate-limit.js';
import { AuditWriter, diffFields } from '../../core/audit/audit-writer.js';

class Gadget extends TenantModel {
  static override tableName = 'gadgets';
  static override idPrefix = 'gdg';
  declare name: string;
  declare rank: number;
}

t.test('data layer', async (t) => {
  const { db, close } = await createTestDb();
  t.teardown(close);
  Model.knex(db);
  await db.schema.createTable('gadgets', (tb) => {
    tb.text('id').primary();
    tb.text('org_id').notNullable();
    tb.text('name').notNullable();
    tb.integer('rank').notNullable();
    tb.timestamp('created_at', { useTz: true }).notNullable();
    tb.timestamp('updated_at', { useTz: true }).notNullable();
  });

  await t.test('tenancy guard: queries must name their organization', async (t) => {
    const a = await Gadget.query().insert({ org_id: 'org_a', name: 'a1', rank: 1 });
    await Gadget.query().insert({ org_id: 'org_b', name: 'b1', rank: 1 });
    t.match(a.id, /^gdg_/);
    t.ok(a.created_at instanceof Date);

    await t.rejects(async () => await Gadget.query().where('name', 'a1'), TenancyError, 'a forgotten org filter is caught');
    await t.rejects(async () => await Gadget.query().findById(a.id), TenancyError, 'findById without org is caught');
    await t.rejects(async () => await Gadget.query().patch({ name: 'x' }).where('id', a.id), TenancyError, 'update without org is caught');
    await t.rejects(async () => await Gadget.query().delete(), TenancyError, 'delete without org is caught');
    await t.rejects(async () => await Gadget.query().insert({ name: 'orphan', rank: 1 } as never), TenancyError, 'insert without org_id is caught');

    t.equal((await Gadget.query().forOrg('org_b').findById(a.id)) ?? null, null, "another organization's id is not found");
    t.equal((await Gadget.query().forOrg('org_a').findById(a.id))?.name, 'a1');
    t.equal((await Gadget.query().acrossOrgs('test').resultSize()), 2);
    const json = (await Gadget.query().forOrg('org_a').findById(a.id))!.toJSON() as Record<string, unknown>;
    t.match(json.created_at, /^\d{4}-\d\d-\d\dT/, 'timestamps leave as ISO strings');
  });

  await t.test('keyset pagination walks every row once, in order, both directions', async (t) => {
    await db('gadgets').delete();
    const now = Date.now();
    const rows = Array.from({ length: 23 }, (_, i) => ({ id: `gdg_${String(i).padStart(3, '0')}`, org_id: 'org_p', name: `n${i}`, rank: i % 4, created_at: new Date(now - i * 1000), updated_at: new Date() }));
    await db('gadgets').insert(rows);
    const keys = [{ column: 'rank', direction: 'desc' as const, type: 'number' as const }, { column: 'id', direction: 'asc' as const }];
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { items: { id: string }[]; next_cursor: string | null } = await paginate(db('gadgets').where('org_id', 'org_p'), keys, { cursor, limit: 5 });
      seen.push(...page.items.map((r) => r.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    t.equal(pages, 5);
    t.equal(new Set(seen).size, 23, 'no duplicates, nothing missed');
    const expected = [...rows].sort((a, b) => b.rank - a.rank || a.id.localeCompare(b.id)).map((r) => r.id);
    t.same(seen, expected);
    await t.rejects(paginate(db('gadgets'), keys, { cursor: 'garbage', limit: 5 }), { output: { statusCode: 400 } } as never);
    await t.rejects(paginate(db('gadgets'), keys, { cursor: encodeCursor([1]), limit: 5 }), { output: { statusCode: 400 } } as never);
  });

  await t.test('rate limiter: fixed window shared through the database', async (t) => {
    const rl = new RateLimiter(db);
    const r1 = await rl.hit('k', 2, 60_000);
    const r2 = await rl.hit('k', 2, 60_000);
    const r3 = await rl.hit('k', 2, 60_000);
    t.ok(r1.allowed && r2.allowed);
    t.notOk(r3.allowed);
    t.ok(r3.retryAfterSeconds > 0 && r3.retryAfterSeconds <= 60);
    await t.rejects(rl.consume('k', 2, 60_000), { output: { statusCode: 429, headers: { 'Retry-After': /^\d+$/ } } } as never);
    const short = await rl.hit('short', 1, 50);
    t.ok(short.allowed);
    await new Promise((r) => setTimeout(r, 80));
    t.ok((await rl.hit('short', 1, 50)).allowed, 'a new window starts after the old one ends');
  });

  await t.test('audit writer: entries with changes, secrets redacted', async (t) => {
    const audit = new AuditWriter(db);
    const changes = diffFields({ name: 'a', api_key: 'x', same: 1 }, { name: 'b', api_key: 'y', same: 1 });
    t.same(Object.keys(changes).sort(), ['api_key', 'name']);
    const id = await audit.record(null, { orgId: 'org_a', actor: { type: 'user', id: 'usr_1' }, action: 'gadget.updated', target: { type: 'gadget', id: 'gdg_1' }, changes });
    const row = await db('audit_entries').where({ id }).first();
    t.equal(row.action, 'gadget.updated');
    t.same(row.changes.name, { before: 'a', after: 'b' });
    t.same(row.changes.api_key, { before: '[redacted]', after: '[redacted]' });
  });
});
