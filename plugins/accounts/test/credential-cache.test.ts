import t from 'tap';
import pg from 'pg';
import { createApp, type App } from '../../../core/kernel/app.js';
import { builtinAdapters } from '../../../adapters/index.js';
import { builtinPlugins } from '../../../plugins/index.js';
import { hashToken } from '../../../core/security/tokens.js';
import { addMember, insertWorkspace, signUp, type SignedUp } from '../../../test/helpers/accounts.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { waitFor } from '../../../test/helpers/wait.js';
import { CredentialCache } from '../services/credential-cache.js';
import type { SessionRow } from './helpers.js';

const app = await startTestApp(t);

type Auth = SignedUp['auth'] | { headers: { authorization: string } };
const listIn = (a: App, who: Auth, workspaceId: string) =>
  a.server.inject({ method: 'GET', url: `/v1/tickets?workspace_id=${workspaceId}`, ...who }).then((r) => r.statusCode);
const cacheOf = (a: App) => a.container.resolve('credentialCache') as CredentialCache<unknown>;
const cached = (a: App, who: SignedUp) =>
  !!cacheOf(a).get(`sessions:${hashToken(who.cookie.slice('pw_session='.length))}`);

t.test('a cached credential follows every change made in this process at once', async (t) => {
  const owner = await signUp(app);
  const ws1 = await insertWorkspace(app, owner.organization.id, { name: 'One' });
  const ws2 = await insertWorkspace(app, owner.organization.id, { name: 'Two' });
  const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [ws1.id] });

  t.equal(await listIn(app, reviewer.auth, ws2.id), 403, 'not granted');
  t.equal(await listIn(app, reviewer.auth, ws1.id), 200);
  if (!app.config.database.url) t.ok(cached(app, reviewer), 'the second request was answered from the cache');

  const patch = (payload: object) =>
    app.server.inject({ method: 'PATCH', url: `/v1/members/${reviewer.user.id}`, payload, ...owner.auth });
  t.equal((await patch({ workspace_ids: [ws1.id, ws2.id] })).statusCode, 200);
  t.equal(await listIn(app, reviewer.auth, ws2.id), 200, 'a new grant counts on the next request');
  t.equal((await patch({ workspace_ids: [ws1.id] })).statusCode, 200);
  t.equal(await listIn(app, reviewer.auth, ws2.id), 403, 'a withdrawn grant too');
  t.equal((await patch({ role: 'admin' })).statusCode, 200);
  t.equal(await listIn(app, reviewer.auth, ws2.id), 200, 'a new role too');
  t.equal(
    (await app.server.inject({ method: 'DELETE', url: `/v1/members/${reviewer.user.id}`, ...owner.auth })).statusCode,
    204,
  );
  t.equal(await listIn(app, reviewer.auth, ws1.id), 401, 'a removed member is signed out at once');

  const token = JSON.parse(
    (
      await app.server.inject({
        method: 'POST',
        url: '/v1/tokens',
        payload: { name: 'ci', role: 'admin' },
        ...owner.auth,
      })
    ).payload,
  ) as { id: string; token: string };
  const bearer = { headers: { authorization: `Bearer ${token.token}` } };
  t.equal(await listIn(app, bearer, ws1.id), 200);
  t.equal(await listIn(app, bearer, ws1.id), 200);
  t.equal(
    (await app.server.inject({ method: 'DELETE', url: `/v1/tokens/${token.id}`, ...owner.auth })).statusCode,
    204,
  );
  t.equal(await listIn(app, bearer, ws1.id), 401, 'a revoked token stops at once');

  // A write through the database layer that no service announces (support tooling, a migration).
  t.equal(await listIn(app, owner.auth, ws1.id), 200);
  await app.db('sessions').where({ user_id: owner.user.id }).update({ revoked_at: new Date() });
  t.equal(await listIn(app, owner.auth, ws1.id), 401, 'a session revoked by any statement ends at once');
});

t.test('touching a session keeps the cache: using a credential is not a change of it', async (t) => {
  const owner = await signUp(app);
  const ws = await insertWorkspace(app, owner.organization.id);
  await app
    .db('sessions')
    .where({ user_id: owner.user.id })
    .update({ last_seen_at: new Date(Date.now() - 3_600_000) });
  t.equal(await listIn(app, owner.auth, ws.id), 200, 'this request touches the session');
  const session = await app.db<SessionRow>('sessions').where({ user_id: owner.user.id }).first('last_seen_at');
  t.ok(session && Date.now() - new Date(session.last_seen_at).getTime() < 60_000, 'last_seen_at written');
  if (!app.config.database.url) t.ok(cached(app, owner), 'and the credential stays cached');
});

t.test('without a live LISTEN connection (Postgres) the cache keeps nothing', (t) => {
  const cache = new CredentialCache<{ credential: string; user: string }>({ ttlSeconds: 10, maxEntries: 10 }, true);
  cache.put('k', { credential: 'c', user: 'u' }, cache.begin());
  t.equal(cache.get('k'), undefined, 'not live before it listens');
  const local = new CredentialCache<{ credential: string; user: string }>({ ttlSeconds: 10, maxEntries: 2 }, false);
  const begun = local.begin();
  local.invalidate();
  local.put('k', { credential: 'c', user: 'u' }, begun);
  t.equal(local.get('k'), undefined, 'a lookup that began before a change is not kept');
  for (const k of ['a', 'b', 'c']) local.put(k, { credential: k, user: k }, local.begin());
  t.equal(local.get('a'), undefined, 'the oldest entry leaves first');
  t.ok(local.get('c'));
  const off = new CredentialCache<{ credential: string; user: string }>({ ttlSeconds: 0, maxEntries: 2 }, false);
  off.put('k', { credential: 'c', user: 'u' }, off.begin());
  t.equal(off.get('k'), undefined, 'ttlSeconds 0 turns it off');
  t.end();
});

t.test(
  "another process's change reaches this one over LISTEN",
  { skip: !process.env.DATABASE_URL && 'Postgres only: PGlite is one process' },
  async (t) => {
    // A second API process on the same database (schema) and bus.
    const other = await createApp(app.config, { roles: ['api'], plugins: builtinPlugins, adapters: builtinAdapters });
    await other.start({ listen: false, scheduler: false });
    t.teardown(() => other.stop());
    const owner = await signUp(app);
    const ws = await insertWorkspace(app, owner.organization.id);
    const member = await addMember(app, owner, { role: 'admin' });
    await waitFor(
      async () => {
        await listIn(other, member.auth, ws.id);
        return cached(other, member);
      },
      'the other process to cache the member',
      5000,
    );
    t.ok(cached(other, member), 'the other process keeps the credential once it listens');

    // Changed by this process: the other hears it at commit.
    t.equal(
      (await app.server.inject({ method: 'DELETE', url: `/v1/members/${member.user.id}`, ...owner.auth })).statusCode,
      204,
    );
    await waitFor(
      async () => (await listIn(other, member.auth, ws.id)) === 401,
      'the removal to reach the other process',
      2000,
    );
    t.equal(await listIn(other, member.auth, ws.id), 401, 'the removed member is refused by the other process too');

    // Changed by a client outside the service (psql, a support script): the triggers notify.
    await waitFor(
      async () => {
        await listIn(other, owner.auth, ws.id);
        return cached(other, owner);
      },
      'the other process to cache the owner',
      5000,
    );
    const outside = new pg.Client({ connectionString: app.config.database.url! });
    await outside.connect();
    try {
      await outside.query(`update "${app.config.database.schema}".sessions set revoked_at = now() where user_id = $1`, [
        owner.user.id,
      ]);
    } finally {
      await outside.end();
    }
    await waitFor(
      async () => (await listIn(other, owner.auth, ws.id)) === 401,
      'the outside revocation to reach the other process',
      2000,
    );
    t.equal(await listIn(other, owner.auth, ws.id), 401, 'a session revoked outside the service ends everywhere');
  },
);

t.test('behind a transaction pooler the cache is off (LISTEN would hear nothing)', async (t) => {
  const pooled = await startTestApp(t, { database: { transactionPooler: true } });
  const owner = await signUp(pooled);
  const ws = await insertWorkspace(pooled, owner.organization.id);
  t.equal(await listIn(pooled, owner.auth, ws.id), 200);
  t.equal(await listIn(pooled, owner.auth, ws.id), 200);
  t.notOk(cached(pooled, owner), 'nothing kept');
});
