import t from 'tap';
import { startTestApp } from '../../../test/helpers/app.js';
import { addMember, onPlan, signUp } from '../../../test/helpers/accounts.js';
import { newId } from '../../../core/data/ids.js';
import type { ApiError, Method } from '../../../test/helpers/api-types.js';
import { allPages, call } from '../../../test/helpers/call.js';

const LIST_ONLY_ABSENT = ['inbound_address', 'widget', 'release_strategy', 'available_fix_credits'];

/** The request paths a validation refusal lists (details.errors[].path). */
const errorPaths = (body: Partial<ApiError>) => (body.details?.errors as Array<{ path: string }>).map((e) => e.path);

t.test('workspaces: create, read, list, update with audit, archive, across organizations', async (t) => {
  const app = await startTestApp(t);
  const owner = await signUp(app, { orgName: 'Acme' });
  // Several workspaces: a plan that includes them (the none plan includes one).
  await onPlan(app, owner.organization.id, 'growth');

  await t.test('an owner creates a workspace with its mailbox and widget install', async (t) => {
    const res = await call(app, owner, 'POST', '/v1/workspaces', {
      name: 'Shop Front',
      client_name: 'Shop Inc',
      locale: 'it',
      execution_mode: 'runner',
    });
    t.equal(res.status, 201, JSON.stringify(res.body));
    const ws = res.body;
    t.match(ws, {
      name: 'Shop Front',
      slug: 'shop-front',
      client_name: 'Shop Inc',
      locale: 'it',
      execution_mode: 'runner',
      org_id: owner.organization.id,
      archived_at: null,
    });
    t.match(
      ws.inbound_address,
      /^shop-front-[a-z2-9]{6}@inbound\.localhost$/,
      'inbound address <slug>-<random>@inbound.<host of PUBLIC_BASE_URL>',
    );
    t.match(ws.widget.public_key, /^pk_[A-Za-z0-9_-]{32}$/);
    t.same(ws.widget.allowed_origins, []);
    t.equal(ws.release_strategy, 'semver');
    t.equal(ws.available_fix_credits, 0);
    t.equal(ws.sla_first_response_minutes, 240);
    t.same(ws.agent_config, { model: null, credential_id: null, effort: null, max_minutes: null, max_cost_usd: null });

    const again = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Shop Front' });
    t.equal(again.status, 201);
    t.equal(again.body.slug, 'shop-front-2', 'a derived slug gets a suffix when taken');
    t.not(again.body.inbound_address, ws.inbound_address);

    const taken = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Other', slug: 'shop-front' });
    t.equal(taken.status, 409);
    t.equal(taken.body.code, 'slug_taken');

    const bad = await call(app, owner, 'POST', '/v1/workspaces', { name: '', slug: 'Not A Slug!', locale: 'de' });
    t.equal(bad.status, 400);
    t.same(errorPaths(bad.body).sort(), ['payload.locale', 'payload.name', 'payload.slug']);

    const audit = await app
      .db('audit_entries')
      .where({ org_id: owner.organization.id, action: 'workspace.created', target_id: ws.id });
    t.equal(audit.length, 1, 'creation is audited');
    const events = await app.db('outbox').where({ type: 'workspaces.created', org_id: owner.organization.id });
    t.equal(events.length, 2);
  });

  const list = await call(app, owner, 'GET', '/v1/workspaces');
  const shop = list.body.items.find((w) => w.slug === 'shop-front');
  if (!shop) throw new Error(`no workspace shop-front: ${list.payload}`);

  await t.test('get answers the single form; the list form omits the four single-form fields', async (t) => {
    const res = await call(app, owner, 'GET', `/v1/workspaces/${shop.id}`);
    t.equal(res.status, 200);
    for (const k of LIST_ONLY_ABSENT) t.ok(k in res.body, `single form has ${k}`);
    for (const k of LIST_ONLY_ABSENT) t.notOk(k in shop, `list form has no ${k}`);
    t.equal(Object.keys(res.body).length, Object.keys(shop).length + 4);
  });

  await t.test('PATCH validates every field and audits each change with before and after', async (t) => {
    // Ids a body names must exist in the organization (docs/security.md): a brand profile and a credential of its own.
    const brandProfileId = newId('bp');
    await app.db('brand_profiles').insert({
      id: brandProfileId,
      org_id: owner.organization.id,
      name: 'Shop brand',
      primary_color: '#123456',
      font_family: 'system-ui',
    });
    const credentialId = newId('cred');
    await app.db('onboarding_credentials').insert({
      id: credentialId,
      org_id: owner.organization.id,
      workspace_id: shop.id,
      kind: 'api_key',
      sealed: 'x',
      last4: '1234',
    });
    const unknown = await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, { brand_profile_id: 'bp_1' });
    t.equal(unknown.status, 404, 'an unknown brand profile');
    t.equal(errorPaths(unknown.body)[0], 'payload.brand_profile_id');
    const patch = {
      name: 'Shop',
      client_name: 'Shop S.p.A.',
      locale: 'en',
      brand_profile_id: brandProfileId,
      execution_mode: 'mcp',
      agent_id: 'agent_3',
      auth_method: 'api-key',
      runner_transport: 'container',
      agent_config: { model: 'large', effort: 'high', max_minutes: 30, max_cost_usd: 2.5 },
      managed_fixes_with_credits: true,
      autonomy: 'autopilot',
      autopilot_categories: ['docs', 'usage'],
      confidence_threshold: 0.9,
      share_policy: 'references_only',
      test_command: 'npm test',
      release_strategy: 'calver',
      merge_method: 'rebase',
      auto_merge: true,
      release_batching: 'batched',
      changelog_enabled: false,
      github_release_enabled: true,
      auto_close_days: 14,
      proactive_enabled: true,
      proactive_threshold_users: 10,
      proactive_monthly_fix_cap: 3,
      notify_affected_users: false,
      critical_paths: ['/checkout', '/login'],
      sla_first_response_minutes: 60,
      sla_resolution_minutes: 600,
      report_recipients: ['Boss@Example.com'],
      report_intro: 'Hello',
      report_auto_send: true,
      patterns_opt_in: true,
      oss_auto_close_issues: true,
      oss_comments_per_hour: 5,
    };
    const res = await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, patch);
    t.equal(res.status, 200, JSON.stringify(res.body));
    const { agent_config, report_recipients, ...rest } = patch;
    t.match(res.body, rest);
    t.same(res.body.agent_config, {
      model: 'large',
      credential_id: null,
      effort: 'high',
      max_minutes: 30,
      max_cost_usd: 2.5,
    });
    t.same(res.body.report_recipients, ['boss@example.com']);
    t.equal(res.body.slug, 'shop-front', 'the slug does not change');

    const entries = (await app
      .db('audit_entries')
      .where({ org_id: owner.organization.id, action: 'workspace.updated', target_id: shop.id })) as Array<{
      changes: string | Record<string, unknown>;
    }>;
    t.equal(entries.length, 1);
    const stored = entries[0].changes;
    const changes = (typeof stored === 'string' ? JSON.parse(stored) : stored) as Record<string, unknown>;
    t.same(changes.name, { before: 'Shop Front', after: 'Shop' });
    t.same(changes.sla_first_response_minutes, { before: 240, after: 60 });
    t.same(changes.autopilot_categories, { before: [], after: ['docs', 'usage'] });
    t.equal(Object.keys(changes).length, Object.keys(patch).length, 'one before/after per changed field');

    t.equal(
      (await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, { agent_config: { credential_id: 'cred_1' } }))
        .status,
      404,
      'an unknown credential',
    );
    const merged = await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, {
      agent_config: { model: null, credential_id: credentialId },
    });
    t.same(
      merged.body.agent_config,
      { model: null, credential_id: credentialId, effort: 'high', max_minutes: 30, max_cost_usd: 2.5 },
      'agent_config merges; null removes a key',
    );

    const invalid = await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, {
      execution_mode: 'cloud',
      autonomy: 'yolo',
      confidence_threshold: 2,
      report_recipients: ['not-an-email'],
      autopilot_categories: ['weird'],
      agent_config: { max_minutes: 0, colour: 'red' },
      sla_first_response_minutes: 0,
      share_policy: 'all',
      merge_method: 'ff',
      slug: 'x',
    });
    t.equal(invalid.status, 400);
    const paths = errorPaths(invalid.body);
    for (const p of [
      'execution_mode',
      'autonomy',
      'confidence_threshold',
      'report_recipients.0',
      'autopilot_categories.0',
      'agent_config.max_minutes',
      'agent_config.colour',
      'sla_first_response_minutes',
      'share_policy',
      'merge_method',
      'slug',
    ]) {
      t.ok(paths.includes(`payload.${p}`), `rejects ${p}`);
    }
    const sla = await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, { sla_resolution_minutes: 30 });
    t.equal(sla.status, 400, 'resolution shorter than first response');
    t.equal(
      (await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, {})).status,
      400,
      'an empty body changes nothing',
    );
    t.equal(
      (await app.db('audit_entries').where({ action: 'workspace.updated', target_id: shop.id })).length,
      2,
      'refused changes are not audited',
    );
  });

  await t.test('members see only the workspaces they can open; reviewers cannot change settings', async (t) => {
    const other = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Hidden' });
    const reviewer = await addMember(app, owner, { role: 'reviewer', workspaceIds: [shop.id] });
    const seen = await call(app, reviewer, 'GET', '/v1/workspaces');
    t.same(
      seen.body.items.map((w) => w.id),
      [shop.id],
    );
    t.equal((await call(app, reviewer, 'GET', `/v1/workspaces/${shop.id}`)).status, 200);
    const hidden = await call(app, reviewer, 'GET', `/v1/workspaces/${other.body.id}`);
    t.equal(hidden.status, 403, 'same organization without access: 403');
    t.equal((await call(app, reviewer, 'PATCH', `/v1/workspaces/${shop.id}`, { name: 'x' })).status, 403);
    t.equal((await call(app, reviewer, 'POST', '/v1/workspaces', { name: 'x' })).status, 403);
    t.equal((await call(app, reviewer, 'POST', `/v1/workspaces/${shop.id}/archive`)).status, 403);
  });

  await t.test("another organization's workspace answers 404", async (t) => {
    const stranger = await signUp(app, { orgName: 'Other Co' });
    for (const [method, url, payload] of [
      ['GET', `/v1/workspaces/${shop.id}`],
      ['PATCH', `/v1/workspaces/${shop.id}`, { name: 'Mine' }],
      ['POST', `/v1/workspaces/${shop.id}/archive`],
    ] as [Method, string, unknown?][]) {
      const res = await call(app, stranger, method, url, payload);
      t.equal(res.status, 404, `${method} ${url}`);
      t.equal(res.body.code, 'not_found');
    }
    t.notOk((await call(app, stranger, 'GET', '/v1/workspaces')).body.items.some((w) => w.id === shop.id));
    t.equal((await call(app, owner, 'GET', `/v1/workspaces/${shop.id}`)).body.name, 'Shop', 'nothing changed');
  });

  await t.test(
    'archive stops the mailbox, revokes the widget key and the tokens restricted to the workspace',
    async (t) => {
      const keep = await call(app, owner, 'POST', '/v1/workspaces', { name: 'Keep' });
      const tokenOf = async (workspaceIds: string[] | null) => {
        const res = await call(app, owner, 'POST', '/v1/tokens', {
          name: `t-${workspaceIds?.length ?? 'all'}`,
          role: 'admin',
          ...(workspaceIds ? { workspace_ids: workspaceIds } : {}),
        });
        t.equal(res.status, 201, JSON.stringify(res.body));
        return res.body;
      };
      const only = await tokenOf([shop.id]);
      const both = await tokenOf([shop.id, keep.body.id]);
      const bearer = (tok: { token: string }) => ({ headers: { authorization: `Bearer ${tok.token}` } });
      const onlyId = only.id;
      t.equal(
        (await app.server.inject({ method: 'GET', url: `/v1/workspaces/${shop.id}`, ...bearer(only) })).statusCode,
        200,
        'the token works before',
      );

      const res = await call(app, owner, 'POST', `/v1/workspaces/${shop.id}/archive`);
      t.equal(res.status, 200, JSON.stringify(res.body));
      t.ok(res.body.archived_at);
      const row = (await app.db('workspaces').where({ id: shop.id }).first()) as {
        mailbox_enabled: boolean;
        widget_key_revoked_at: Date | null;
      };
      t.equal(row.mailbox_enabled, false, 'the mailbox stops receiving');
      t.ok(row.widget_key_revoked_at, 'the widget key is revoked');
      const ws = app.container.resolve('workspaceService') as { findByWidgetKey(k: string): Promise<unknown> };
      const key = res.body.widget.public_key;
      if (!key) throw new Error(`the archived workspace answers no widget key: ${res.payload}`);
      t.notOk(await ws.findByWidgetKey(key), 'the widget key no longer resolves');

      t.equal(
        (await app.server.inject({ method: 'GET', url: '/v1/workspaces', ...bearer(only) })).statusCode,
        401,
        'the token restricted to it is revoked',
      );
      const narrowed = await app
        .db('api_tokens')
        .where({ org_id: owner.organization.id })
        .whereNull('revoked_at')
        .whereRaw<Array<{ workspace_ids: string | string[] }>>('workspace_ids @> ?::jsonb', [
          JSON.stringify([keep.body.id]),
        ]);
      t.equal(narrowed.length, 1);
      t.same(
        typeof narrowed[0].workspace_ids === 'string'
          ? JSON.parse(narrowed[0].workspace_ids)
          : narrowed[0].workspace_ids,
        [keep.body.id],
        'a token of several workspaces loses only this one',
      );
      t.equal(
        (await app.server.inject({ method: 'GET', url: `/v1/workspaces/${keep.body.id}`, ...bearer(both) })).statusCode,
        200,
      );
      const revoked = (await app.db('api_tokens').where({ id: onlyId }).first()) as { revoked_at: Date | null };
      t.ok(revoked.revoked_at);

      const audit = (await app
        .db('audit_entries')
        .where({ action: 'workspace.archived', target_id: shop.id })
        .first()) as { id: string } | undefined;
      t.ok(audit, 'archive is audited');
      t.equal((await app.db('outbox').where({ type: 'workspaces.archived' })).length, 1);

      t.equal((await call(app, owner, 'POST', `/v1/workspaces/${shop.id}/archive`)).body.code, 'workspace_archived');
      t.equal((await call(app, owner, 'PATCH', `/v1/workspaces/${shop.id}`, { name: 'x' })).status, 409);
    },
  );

  await t.test('the list: by name, archived on request, include_archived as boolean or 0/1, cursor', async (t) => {
    const names = (r: { body: { items: Array<{ name: string }> } }) => r.body.items.map((w) => w.name);
    const active = await call(app, owner, 'GET', '/v1/workspaces');
    t.notOk(names(active).includes('Shop'), 'archived workspaces are hidden by default');
    const sorted = [...names(active)].sort();
    t.same(names(active), sorted, 'by name');
    for (const v of ['true', '1'])
      t.ok(
        names(await call(app, owner, 'GET', `/v1/workspaces?include_archived=${v}`)).includes('Shop'),
        `include_archived=${v}`,
      );
    for (const v of ['false', '0'])
      t.notOk(
        names(await call(app, owner, 'GET', `/v1/workspaces?include_archived=${v}`)).includes('Shop'),
        `include_archived=${v}`,
      );
    t.equal((await call(app, owner, 'GET', '/v1/workspaces?include_archived=maybe')).status, 400);

    const all = names(await call(app, owner, 'GET', '/v1/workspaces?include_archived=1&limit=200'));
    const pages = await allPages(app, owner, '/v1/workspaces?include_archived=true&limit=2');
    for (const page of pages) t.ok(page.body.items.length <= 2);
    const paged = pages.flatMap(names);
    t.same(paged, all, 'pages in order without gaps or repeats');
    t.equal((await call(app, owner, 'GET', '/v1/workspaces?cursor=nonsense')).status, 400);
  });
});
