import t from 'tap';
import { Model } from 'objection';
import { createTestDb } from '../helpers/db.js';
import { TenantModel, TenancyError } from '../../core/data/model.js';
import { paginate, encodeCursor, isTimestampText } from '../../core/http/pagination.js';
import { RateLimiter } from '../../core/http/rate-limit.js';
import { AuditWriter, diffFields, type AuditEntry } from '../../core/audit/audit-writer.js';
import { systemActor, userActor } from '../../core/http/actor.js';
import { isUniqueViolation } from '../../core/data/db-errors.js';

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

    await t.rejects(
      async () => await Gadget.query().where('name', 'a1'),
      TenancyError,
      'a forgotten org filter is caught',
    );
    await t.rejects(async () => await Gadget.query().findById(a.id), TenancyError, 'findById without org is caught');
    await t.rejects(
      async () => await Gadget.query().patch({ name: 'x' }).where('id', a.id),
      TenancyError,
      'update without org is caught',
    );
    await t.rejects(async () => await Gadget.query().delete(), TenancyError, 'delete without org is caught');
    await t.rejects(
      async () => await Gadget.query().insert({ name: 'orphan', rank: 1 } as never),
      TenancyError,
      'insert without org_id is caught',
    );

    t.equal(
      (await Gadget.query().forOrg('org_b').findById(a.id)) ?? null,
      null,
      "another organization's id is not found",
    );
    t.equal((await Gadget.query().forOrg('org_a').findById(a.id))?.name, 'a1');
    t.equal(await Gadget.query().acrossOrgs('test').resultSize(), 2);
    const json = (await Gadget.query().forOrg('org_a').findById(a.id))!.toJSON() as Record<string, unknown>;
    t.match(json.created_at, /^\d{4}-\d\d-\d\dT/, 'timestamps leave as ISO strings');
  });

  await t.test('keyset pagination walks every row once, in order, both directions', async (t) => {
    await db('gadgets').delete();
    const now = Date.now();
    const rows = Array.from({ length: 23 }, (_, i) => ({
      id: `gdg_${String(i).padStart(3, '0')}`,
      org_id: 'org_p',
      name: `n${i}`,
      rank: i % 4,
      created_at: new Date(now - i * 1000),
      updated_at: new Date(),
    }));
    await db('gadgets').insert(rows);
    const keys = [
      { column: 'rank', direction: 'desc' as const, type: 'number' as const },
      { column: 'id', direction: 'asc' as const },
    ];
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: { items: { id: string }[]; next_cursor: string | null } = await paginate(
        db('gadgets').where('org_id', 'org_p'),
        keys,
        { cursor, limit: 5 },
      );
      seen.push(...page.items.map((r) => r.id));
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    t.equal(pages, 5);
    t.equal(new Set(seen).size, 23, 'no duplicates, nothing missed');
    const expected = [...rows].sort((a, b) => b.rank - a.rank || a.id.localeCompare(b.id)).map((r) => r.id);
    t.same(seen, expected);
    await t.rejects(paginate(db('gadgets'), keys, { cursor: 'garbage', limit: 5 }), {
      output: { statusCode: 400 },
    } as never);
    await t.rejects(paginate(db('gadgets'), keys, { cursor: encodeCursor([1]), limit: 5 }), {
      output: { statusCode: 400 },
    } as never);
  });

  await t.test(
    'keyset pagination on a timestamp keeps its microseconds: rows within one millisecond are neither skipped nor repeated',
    async (t) => {
      await db('gadgets').delete();
      // Seven rows in one millisecond (µs apart, ids against the time order) and three around it.
      const times = [
        '2026-03-01 10:00:00.122999+00',
        '2026-03-01 10:00:00.123000+00',
        '2026-03-01 10:00:00.123001+00',
        '2026-03-01 10:00:00.123250+00',
        '2026-03-01 10:00:00.123500+00',
        '2026-03-01 10:00:00.123500+00',
        '2026-03-01 10:00:00.123750+00',
        '2026-03-01 10:00:00.123999+00',
        '2026-03-01 10:00:00.124000+00',
        '2026-03-01 10:00:00.124001+00',
      ];
      await db('gadgets').insert(
        times.map((at, i) => ({
          id: `gdg_${String(9 - i).padStart(3, '0')}`,
          org_id: 'org_m',
          name: `m${i}`,
          rank: i % 3,
          created_at: db.raw('?::timestamptz', [at]),
          updated_at: db.raw('?::timestamptz', [at]),
        })),
      );
      const exact = await db('gadgets').where('org_id', 'org_m').select<
        {
          id: string;
          at: string;
        }[]
      >('id', db.raw('created_at::text as at'));
      const atOf = new Map(exact.map((r) => [r.id, r.at]));
      const order = (dir: 'asc' | 'desc') =>
        [...exact]
          .sort(
            (a, b) =>
              (a.at < b.at ? -1 : a.at > b.at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0) * (dir === 'asc' ? 1 : -1),
          )
          .map((r) => r.id);

      const walk = async (
        page: (cursor: string | null) => Promise<{ items: Record<string, unknown>[]; next_cursor: string | null }>,
      ) => {
        const seen: Record<string, unknown>[] = [];
        let cursor: string | null = null;
        do {
          const p = await page(cursor);
          seen.push(...p.items);
          cursor = p.next_cursor;
        } while (cursor);
        return seen;
      };
      for (const dir of ['desc', 'asc'] as const) {
        for (const limit of [1, 2, 3]) {
          const keys = [
            { column: 'created_at', direction: dir, type: 'date' as const },
            { column: 'id', direction: dir, type: 'string' as const },
          ];
          const seen = await walk((cursor) =>
            paginate(db('gadgets').where('org_id', 'org_m'), keys, { cursor, limit }),
          );
          t.same(
            seen.map((r) => r.id),
            order(dir),
            `knex, ${dir}, ${limit} per page: every row once, in order`,
          );
          t.ok(
            seen.every((r) => !Object.keys(r).some((k) => k.startsWith('_pw_cursor'))),
            'the exact-time column stays out of the items',
          );
          t.ok(
            seen.every((r) => r.name && r.created_at instanceof Date),
            'a query that named no columns still gets them all',
          );
        }
      }
      // An objection query (it selects `gadgets.*` when told nothing), a query that names its
      // columns, and mixed directions.
      const viaModel = await walk((cursor) =>
        paginate(
          Gadget.query().forOrg('org_m'),
          [
            { column: 'gadgets.created_at', field: 'created_at', direction: 'desc', type: 'date' },
            { column: 'gadgets.id', field: 'id', direction: 'desc' },
          ],
          { cursor, limit: 2 },
        ),
      );
      t.same(
        viaModel.map((r) => r.id),
        order('desc'),
        'objection: every row once, in order',
      );
      t.ok(
        viaModel.every((r) => r instanceof Gadget && r.name && !('_pw_cursor_0' in r)),
        'objection: whole models, without the exact-time column',
      );
      const named = await walk((cursor) =>
        paginate(
          db('gadgets').where('org_id', 'org_m').select('id'),
          [
            { column: 'created_at', direction: 'asc', type: 'date' },
            { column: 'id', direction: 'asc' },
          ],
          { cursor, limit: 3 },
        ),
      );
      t.same(
        named.map((r) => Object.keys(r)),
        named.map(() => ['id']),
        'named columns stay the only ones',
      );
      t.same(
        named.map((r) => r.id),
        order('asc'),
      );
      const mixed = await walk((cursor) =>
        paginate(
          db('gadgets').where('org_id', 'org_m'),
          [
            { column: 'created_at', direction: 'desc', type: 'date' },
            { column: 'id', direction: 'asc' },
          ],
          { cursor, limit: 2 },
        ),
      );
      const mixedOrder = [...exact]
        .sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : a.id < b.id ? -1 : 1))
        .map((r) => r.id);
      t.same(
        mixed.map((r) => r.id),
        mixedOrder,
        'mixed directions: every row once, in order',
      );

      const first = await paginate(
        db('gadgets').where('org_id', 'org_m'),
        [
          { column: 'created_at', direction: 'desc', type: 'date' },
          { column: 'id', direction: 'desc' },
        ],
        { limit: 4 },
      );
      const [at, id] = JSON.parse(Buffer.from(first.next_cursor!, 'base64url').toString()) as [string, string];
      t.equal(at, atOf.get(id), "the cursor carries the last row's time as Postgres writes it");
      // A cursor from before (milliseconds, ISO) still pages: it continues from that millisecond.
      const old = await paginate(
        db('gadgets').where('org_id', 'org_m'),
        [
          { column: 'created_at', direction: 'desc', type: 'date' },
          { column: 'id', direction: 'desc' },
        ],
        { cursor: encodeCursor(['2026-03-01T10:00:00.123Z', 'gdg_zzz']), limit: 50 },
      );
      t.same(
        old.items.map((r) => r.id),
        order('desc').filter(
          (i) => atOf.get(i)! < '2026-03-01 10:00:00.123+00' || atOf.get(i) === '2026-03-01 10:00:00.123+00',
        ),
        'an ISO cursor still works',
      );

      const keys = [
        { column: 'created_at', direction: 'desc' as const, type: 'date' as const },
        { column: 'id', direction: 'desc' as const },
      ];
      for (const bad of [
        ['2026-13-01 00:00:00+00', 'x'],
        ['2026-02-30 00:00:00+00', 'x'],
        ['2026-02-28 24:00:00+00', 'x'],
        ['2026-02-28 10:00:00+16', 'x'],
        ['0000-01-01 00:00:00+00', 'x'],
        ['yesterday', 'x'],
        [1700000000000, 'x'],
        ['2026-02-28 10:00:00+00', { id: 'x' }],
        ['2026-02-28 10:00:00+00', true],
      ]) {
        await t.rejects(
          paginate(db('gadgets').where('org_id', 'org_m'), keys, { cursor: encodeCursor(bad), limit: 5 }),
          { output: { statusCode: 400, payload: { message: 'cursor is not valid for this list' } } } as never,
          `a forged cursor is a 400, not a database error: ${JSON.stringify(bad)}`,
        );
      }
      t.ok(
        isTimestampText('2024-02-29 23:59:59.999999-03:30') && isTimestampText('2026-11-26T15:11:18.123Z'),
        'leap days, offsets and ISO strings are timestamps',
      );
    },
  );

  await t.test('rate limiter: fixed window shared through the database', async (t) => {
    const rl = new RateLimiter(db);
    const r1 = await rl.hit('k', 2, 60_000);
    const r2 = await rl.hit('k', 2, 60_000);
    const r3 = await rl.hit('k', 2, 60_000);
    t.ok(r1.allowed && r2.allowed);
    t.notOk(r3.allowed);
    t.ok(r3.retryAfterSeconds > 0 && r3.retryAfterSeconds <= 60);
    await t.rejects(rl.consume('k', 2, 60_000), {
      output: { statusCode: 429, headers: { 'Retry-After': /^\d+$/ } },
    } as never);
    const short = await rl.hit('short', 1, 50);
    t.ok(short.allowed);
    await new Promise((r) => setTimeout(r, 80));
    t.ok((await rl.hit('short', 1, 50)).allowed, 'a new window starts after the old one ends');
  });

  await t.test('unique violations are told apart from other failures, raw or wrapped, by index', async (t) => {
    await db.schema.createTable('gizmos', (tb) => {
      tb.text('id').primary();
      tb.text('org_id').notNullable();
      tb.text('serial').notNullable();
      tb.timestamp('created_at', { useTz: true }).notNullable();
      tb.timestamp('updated_at', { useTz: true }).notNullable();
      tb.unique(['org_id', 'serial'], { indexName: 'gizmos_serial_uq' });
    });
    const failure = async (run: () => PromiseLike<unknown>) => {
      try {
        await run();
      } catch (err) {
        return err;
      }
      throw new Error('the statement was expected to fail');
    };
    const now = new Date();
    await db('gizmos').insert({ id: 'gzm_1', org_id: 'org_a', serial: 'S1', created_at: now, updated_at: now });
    const raw = await failure(() =>
      db('gizmos').insert({ id: 'gzm_2', org_id: 'org_a', serial: 'S1', created_at: now, updated_at: now }),
    );
    t.ok(isUniqueViolation(raw), "the driver's error");
    t.ok(isUniqueViolation(raw, /gizmos_serial_uq/), 'on the index it names');
    t.notOk(isUniqueViolation(raw, /users_email/), 'not on another index');
    class Gizmo extends TenantModel {
      static override tableName = 'gizmos';
      static override idPrefix = 'gzm';
    }
    const wrapped = await failure(() => Gizmo.query().insert({ org_id: 'org_a', serial: 'S1' } as never));
    t.ok(isUniqueViolation(wrapped, /gizmos_serial_uq/), "objection's wrapped error");
    const other = await failure(() =>
      db('gizmos').insert({ id: 'gzm_3', org_id: 'org_a', created_at: now, updated_at: now }),
    );
    t.notOk(isUniqueViolation(other), 'a not-null violation is something else');
    t.notOk(isUniqueViolation(new Error('duplicate key value violates unique constraint')), 'a message alone is not');
    t.notOk(isUniqueViolation(null));
  });

  await t.test('audit writer: entries with changes, secrets redacted', async (t) => {
    const audit = new AuditWriter(db);
    const changes = diffFields({ name: 'a', api_key: 'x', same: 1 }, { name: 'b', api_key: 'y', same: 1 });
    t.same(Object.keys(changes).sort(), ['api_key', 'name']);
    const id = await audit.record(null, {
      orgId: 'org_a',
      actor: userActor(
        { id: 'usr_1', email: null, org_id: 'org_a' },
        { ip: '203.0.113.9', userAgent: 'curl/8', requestId: 'req_1' },
      ),
      action: 'gadget.updated',
      target: { type: 'gadget', id: 'gdg_1' },
      changes,
    });
    const row = await db<AuditEntry>('audit_entries').where({ id }).first();
    if (!row) throw new Error('the entry is stored');
    t.equal(row.action, 'gadget.updated');
    t.same(
      [row.actor_type, row.actor_id, row.ip, row.user_agent, row.request_id],
      ['user', 'usr_1', '203.0.113.9', 'curl/8', 'req_1'],
      'the actor and where it acted from',
    );
    t.same(row.changes?.name, { before: 'a', after: 'b' });
    t.same(row.changes?.api_key, { before: '[redacted]', after: '[redacted]' });
  });

  await t.test("audit writer: an entry lands in the actor's organization, never another tenant's", async (t) => {
    const audit = new AuditWriter(db);
    const user = userActor({ id: 'usr_2', email: null, org_id: 'org_a' });
    const orgOf = async (id: string) => (await db<AuditEntry>('audit_entries').where({ id }).first())?.org_id;

    const own = await audit.record(null, { actor: user, action: 'gadget.renamed' });
    t.equal(await orgOf(own), 'org_a', "without orgId: the actor's organization");

    const count = async () => Number((await db('audit_entries').count({ n: '*' }).first())?.n);
    const before = await count();
    await t.rejects(
      audit.record(null, { orgId: 'org_b', actor: user, action: 'gadget.renamed' }),
      /names another organization/,
      "a user cannot write into another organization's log",
    );
    const token = { ...user, type: 'token' as const, id: 'tok_1' };
    await t.rejects(audit.record(null, { orgId: 'org_b', actor: token, action: 'gadget.renamed' }), /another/);
    const orgless = systemActor('billing');
    await t.rejects(
      audit.record(null, { orgId: undefined as unknown as string, actor: orgless, action: 'gadget.renamed' }),
      /names no organization/,
      'an actor without an organization must name one',
    );
    t.equal(await count(), before, 'nothing was written by the refused entries');

    const system = await audit.record(null, { orgId: 'org_b', actor: orgless, action: 'plan.granted' });
    t.equal(await orgOf(system), 'org_b', 'a system actor writes where it is told');
    const staff = await audit.record(null, {
      orgId: 'org_b',
      actor: { ...user, type: 'staff' },
      action: 'plan.granted',
    });
    t.equal(await orgOf(staff), 'org_b', 'staff act for another organization, in its log');
  });
});
