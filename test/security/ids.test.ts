import t from 'tap';
import { newId } from '../../core/data/ids.js';
import type { OpenApiDocument } from '../../core/http/openapi-types.js';
import { onPlan, signUp, type SignedUp } from '../helpers/accounts.js';
import {
  ALL_PLUGINS,
  OFFLINE_ADAPTERS,
  apiToken,
  call,
  createWorkspace,
  fieldErrors,
  startSecurityApp,
} from './helpers.js';

/**
 * Ids in bodies and queries are checked as ids in paths are: resolved within the caller's
 * organization (another organization's id, or none at all, answers 404 naming the field), and
 * a list filtered by a workspace the caller cannot open answers 404 (403 for a workspace of the
 * organization outside a scoped token's list), never an empty 200.
 */

const app = await startSecurityApp(t, { ...ALL_PLUGINS, ...OFFLINE_ADAPTERS });
const mine = await signUp(app);
const theirs = await signUp(app);
await onPlan(app, mine.organization.id, 'growth');
const wsMine = await createWorkspace(app, mine);
const wsMine2 = await createWorkspace(app, mine);
const wsTheirs = await createWorkspace(app, theirs);

const profile = async (who: SignedUp) => {
  const id = newId('bp');
  await app
    .db('brand_profiles')
    .insert({ id, org_id: who.organization.id, name: 'Brand', primary_color: '#123456', font_family: 'system-ui' });
  return id;
};
const credential = async (who: SignedUp, workspaceId: string) => {
  const id = newId('cred');
  await app.db('onboarding_credentials').insert({
    id,
    org_id: who.organization.id,
    workspace_id: workspaceId,
    kind: 'api_key',
    sealed: 'x',
    last4: '1234',
  });
  return id;
};

t.test(
  'PATCH /v1/workspaces/{id} resolves brand_profile_id and agent_config.credential_id in the organization',
  async (t) => {
    const patch = (body: Record<string, unknown>) => call(app, mine, 'PATCH', `/v1/workspaces/${wsMine.id}`, body);
    const foreignProfile = await profile(theirs);
    for (const [what, id] of [
      ["another organization's", foreignProfile],
      ['an unknown', 'bp_00000000000000000000000000'],
    ] as const) {
      const res = await patch({ brand_profile_id: id });
      t.equal(res.status, 404, `${what} brand profile`);
      t.same(fieldErrors(res.body), [{ path: 'payload.brand_profile_id', message: 'unknown brand profile' }]);
    }
    const foreignCredential = await credential(theirs, wsTheirs.id);
    for (const [what, id] of [
      ["another organization's", foreignCredential],
      ['an unknown', 'cred_00000000000000000000000000'],
    ] as const) {
      const res = await patch({ agent_config: { credential_id: id } });
      t.equal(res.status, 404, `${what} credential`);
      t.equal(fieldErrors(res.body)?.[0]?.path, 'payload.agent_config.credential_id');
    }
    const stored = await app
      .db<{ id: string; brand_profile_id: string | null; agent_config: unknown }>('workspaces')
      .where({ id: wsMine.id })
      .first();
    if (!stored) throw new Error('the workspace is stored');
    t.equal(stored.brand_profile_id, null, 'nothing was stored');
    t.notOk(JSON.stringify(stored.agent_config ?? {}).includes('cred_'), 'nor a credential');

    const own = await patch({
      brand_profile_id: await profile(mine),
      agent_config: { credential_id: await credential(mine, wsMine.id) },
    });
    t.equal(own.status, 200, `its own ids are taken (${own.payload.slice(0, 200)})`);
    t.equal((await patch({ brand_profile_id: null })).status, 200, 'and null clears');

    const scoped = await apiToken(app, mine, { role: 'admin', workspace_ids: [wsMine.id] });
    const otherWsCredential = await credential(mine, wsMine2.id);
    const res = await call(app, scoped, 'PATCH', `/v1/workspaces/${wsMine.id}`, {
      agent_config: { credential_id: otherWsCredential },
    });
    t.equal(res.status, 404, 'a credential of a workspace the caller cannot open is unknown to it');
  },
);

t.test('lists filtered by a workspace the caller cannot open answer 404, not an empty page', async (t) => {
  const doc = JSON.parse((await app.server.inject({ url: '/v1/openapi.json' })).payload) as OpenApiDocument;
  const lists: string[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const params = item.get?.parameters ?? [];
    if (path.includes('{') || !params.some((p) => p.in === 'query' && p.name === 'workspace_id')) continue;
    lists.push(path);
  }
  for (const must of ['/v1/releases', '/v1/repositories', '/v1/audit', '/v1/patterns'])
    t.ok(lists.includes(must), `${must} takes workspace_id`);
  const scoped = await apiToken(app, mine, { role: 'owner', workspace_ids: [wsMine.id] });
  const wrong: string[] = [];
  const skipped: string[] = [];
  for (const path of lists) {
    // A list the caller cannot use at all here (another plan or organization type, other required filters) is not this test's.
    const own = await call(app, mine, 'GET', `${path}?workspace_id=${wsMine.id}`);
    if (own.status >= 300) {
      skipped.push(`${path} (${own.status} ${String(own.body.code)})`);
      continue;
    }
    const theirsAnswer = await call(app, mine, 'GET', `${path}?workspace_id=${wsTheirs.id}`);
    if (theirsAnswer.status !== 404) wrong.push(`${path} another organization's workspace → ${theirsAnswer.status}`);
    const unknown = await call(app, mine, 'GET', `${path}?workspace_id=ws_00000000000000000000000000`);
    if (unknown.status !== 404) wrong.push(`${path} unknown workspace → ${unknown.status}`);
    const outside = await call(app, scoped, 'GET', `${path}?workspace_id=${wsMine2.id}`);
    if (![403, 404].includes(outside.status)) wrong.push(`${path} outside a scoped token → ${outside.status}`);
  }
  if (skipped.length) t.comment(`not usable by this caller: ${skipped.join(', ')}`);
  for (const must of ['/v1/releases', '/v1/repositories', '/v1/audit', '/v1/patterns'])
    t.notOk(
      skipped.some((x) => x.startsWith(`${must} `)),
      `${must} was checked`,
    );
  t.same(wrong, [], `${lists.length - skipped.length} lists`);
  const installation = await call(app, mine, 'GET', '/v1/repositories?installation_id=inst_nope');
  t.equal(installation.status, 404, 'an unknown installation filter too');

  const agency = await signUp(app, { organizationType: 'agency' });
  await onPlan(app, agency.organization.id, 'agency');
  t.equal(
    (await call(app, agency, 'GET', `/v1/agency/reports?workspace_id=${wsTheirs.id}`)).status,
    404,
    "an agency's reports filtered by another organization's workspace",
  );
});
