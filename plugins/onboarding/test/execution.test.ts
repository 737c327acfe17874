// Onboarding: the wizard walked end to end, each execution rule (en and it), write-only
// credentials, and another organization's workspace.
import t from 'tap';
import type { HttpMethod, OpenApiDocument } from '../../../core/http/openapi-types.js';
import { signUp } from '../../../test/helpers/accounts.js';
import { EXECUTION_RULES } from '../services/rules.js';
import { SHOP_FILES, call, connectRepository, createWorkspace, startOnboardingApp } from './helpers.js';

const app = await startOnboardingApp(t);

t.test('an owner walks the wizard from workspace to the end', async (t) => {
  const owner = await signUp(app);
  const first = await call(app, owner, 'GET', '/v1/onboarding');
  t.equal(first.status, 200);
  t.same(
    first.body.steps.map((s) => s.id),
    ['repository', 'channels', 'agent', 'logs'],
  );

  const ws = await createWorkspace(app, owner, 'Shop');
  const chosen = await call(app, owner, 'POST', '/v1/onboarding/workspace', { workspace_id: ws.id });
  t.equal(chosen.status, 200);
  t.equal(chosen.body.workspace?.id, ws.id);
  t.equal(chosen.body.current, 'repository');
  t.equal(chosen.body.steps.find((s) => s.id === 'agent')?.available, false, 'the agent step waits for the repository');

  const early = await call(app, owner, 'POST', '/v1/onboarding/steps/agent', { action: 'complete' });
  t.equal(early.status, 409);
  t.equal(early.body.code, 'step_unavailable');

  const repo = await connectRepository(app, owner, ws.id, 'shop', SHOP_FILES);
  const step1 = await call(app, owner, 'POST', '/v1/onboarding/repository', { repository_id: repo.id });
  t.equal(step1.status, 200, JSON.stringify(step1.body));
  t.equal(step1.body.repository?.id, repo.id);
  t.equal(step1.body.repository?.onboarding_pr.status, 'open', 'the onboarding pull request is open');
  const codehostView = await call(app, owner, 'GET', `/v1/repositories/${repo.id}`);
  t.equal(
    codehostView.body.onboarding_pr.number,
    step1.body.repository?.onboarding_pr.number,
    'the codehost plugin recorded the same pull request',
  );
  t.equal(step1.body.steps[0].status, 'done');
  t.equal(step1.body.current, 'channels');

  const notOptional = await call(app, owner, 'POST', '/v1/onboarding/steps/repository', { action: 'skip' });
  t.equal(notOptional.body.code, 'step_not_optional');
  const skipped = await call(app, owner, 'POST', '/v1/onboarding/steps/channels', { action: 'skip' });
  t.equal(skipped.body.steps[1].status, 'skipped');
  const reopened = await call(app, owner, 'POST', '/v1/onboarding/steps/channels', { action: 'reopen' });
  t.equal(reopened.body.steps[1].status, 'todo');
  await call(app, owner, 'POST', '/v1/onboarding/steps/channels', { action: 'complete' });

  const incomplete = await call(app, owner, 'POST', '/v1/onboarding/complete');
  t.equal(incomplete.status, 409);
  t.same(incomplete.body.details?.steps, ['agent']);

  const agent = await call(app, owner, 'POST', '/v1/onboarding/agent', {
    answer: 'agent_1_api',
    mode: 'runner',
    agent: 'agent_1',
    auth: 'api-key',
    transport: 'github_actions',
    agent_key: 'sk-test-0123456789abcd',
    runs_on: ['self-hosted'],
  });
  t.equal(agent.status, 200, JSON.stringify(agent.body));
  t.equal(agent.body.agent?.mode, 'runner');
  t.equal(agent.body.agent?.credential_pending, false);
  t.equal(agent.body.workspace?.execution_mode, 'runner');
  t.equal(agent.body.workspace?.runner_transport, 'github_actions');
  t.equal(agent.body.repository?.agent_key.last4, 'abcd', 'the key went to the repository CI secret');
  t.equal(agent.body.credentials.length, 1);
  t.equal(agent.body.credentials[0].last4, 'abcd');
  t.notOk(JSON.stringify(agent.body).includes('sk-test-0123456789abcd'), 'the key never comes back');

  const settings = await call(app, owner, 'GET', `/v1/onboarding/execution/${ws.id}`);
  t.equal(settings.status, 200);
  t.equal(settings.body.preview.includes_workflow, true);
  t.ok(
    settings.body.preview.files.some((f) => f.path.endsWith('.yml') && f.content.includes('self-hosted')),
    'the workflow runs on the chosen labels',
  );
  t.same(settings.body.preview.missing_variables, []);
  const wsAfter = await call(app, owner, 'GET', `/v1/workspaces/${ws.id}`);
  t.equal(
    wsAfter.body.agent_config.credential_id,
    agent.body.credentials[0].id,
    'the workspace uses the stored credential',
  );

  await call(app, owner, 'POST', '/v1/onboarding/steps/logs', { action: 'skip' });
  const done = await call(app, owner, 'POST', '/v1/onboarding/complete');
  t.equal(done.status, 200);
  t.equal(done.body.current, 'done');

  const audit = await app
    .db('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereLike('action', 'onboarding.%')
    .select('action');
  const actions = new Set(audit.map((a: { action: string }) => a.action));
  for (const a of [
    'onboarding.workspace_chosen',
    'onboarding.repository_chosen',
    'onboarding.step_skipped',
    'onboarding.step_reopened',
    'onboarding.agent_confirmed',
    'onboarding.completed',
  ])
    t.ok(actions.has(a), `audited: ${a}`);
});

t.test('each execution rule refuses its combination in the user’s language', async (t) => {
  const en = await signUp(app, { locale: 'en' });
  const it = await signUp(app, { locale: 'it' });
  const wsEn = await createWorkspace(app, en, 'Rules');
  const wsIt = await createWorkspace(app, it, 'Regole');
  const cases: Record<number, Record<string, unknown>> = {
    1: { mode: 'managed', agent: 'other', auth: 'api-key' },
    2: { mode: 'mcp', agent: 'agent_1', auth: 'api-key', transport: 'container' },
    3: { mode: 'runner', agent: 'builtin', auth: 'api-key', transport: 'container' },
    4: { mode: 'runner', agent: 'agent_1', auth: 'api-key' },
    5: { mode: 'runner', agent: 'agent_1', auth: 'account_login', transport: 'github_actions' },
    6: { mode: 'managed', agent: 'agent_1', auth: 'subscription' },
    7: { mode: 'mcp', agent: 'agent_1', auth: 'cloud_a' },
  };
  t.equal(Object.keys(cases).length, EXECUTION_RULES.length, 'one case per rule');
  for (const rule of EXECUTION_RULES) {
    const body = cases[rule.id];
    const a = await call(app, en, 'PUT', `/v1/onboarding/execution/${wsEn.id}`, body);
    t.equal(a.status, 422, `rule ${rule.id} (en)`);
    t.equal(a.body.code, 'forbidden_combination');
    t.equal(a.body.details?.rule, rule.id);
    t.equal(a.body.details?.message, rule.message.en);
    t.equal(a.body.details?.suggestion, rule.suggestion.en);
    const b = await call(app, it, 'POST', '/v1/onboarding/agent', { ...body, answer: 'agent_1_api' });
    t.equal(b.status, 422, `rule ${rule.id} (it)`);
    t.equal(b.body.details?.message, rule.message.it);
    t.equal(b.body.details?.suggestion, rule.suggestion.it);
  }
  // The workspace's own settings follow the same rule 6.
  const patched = await call(app, it, 'PATCH', `/v1/workspaces/${wsIt.id}`, { auth_method: 'subscription' });
  t.equal(patched.status, 422);
  t.equal(patched.body.code, 'forbidden_combination');
  t.equal(patched.body.details?.message, EXECUTION_RULES.find((r) => r.id === 6)!.message.it);
  const ws = await call(app, en, 'GET', `/v1/workspaces/${wsEn.id}`);
  t.equal(ws.body.execution_mode, 'managed', 'a refusal changes nothing');
  // Rule 6 passes in mcp mode.
  const ok = await call(app, en, 'PUT', `/v1/onboarding/execution/${wsEn.id}`, {
    mode: 'mcp',
    agent: 'agent_1',
    auth: 'subscription',
  });
  t.equal(ok.status, 200, JSON.stringify(ok.body));
  t.equal(ok.body.mode, 'mcp');
  t.ok(ok.body.requirements.includes('mcp_client'));
});

t.test('credentials are write-only, show last4, and are deleted only when unused', async (t) => {
  const owner = await signUp(app);
  const ws = await createWorkspace(app, owner, 'Creds');
  const login = JSON.stringify({
    tokens: { access_token: 'secret-access-token-value', refresh_token: 'secret-refresh' },
  });
  const put = await call(app, owner, 'PUT', `/v1/onboarding/execution/${ws.id}`, {
    mode: 'runner',
    agent: 'agent_1',
    auth: 'account_login',
    transport: 'container',
    codex_auth_json: login,
  });
  t.equal(put.status, 200, JSON.stringify(put.body));
  t.equal(put.body.credentials.length, 1);
  const cred = put.body.credentials[0];
  t.equal(cred.kind, 'agent_login_file');
  t.equal(cred.in_use, true);
  t.match(cred.last4, /^[0-9a-f]{4}$/);
  t.notOk(JSON.stringify(put.body).includes('secret-access-token-value'));
  const stored = (await app.db('onboarding_credentials').where({ id: cred.id }).first()) as { sealed: unknown };
  t.notOk(String(stored.sealed).includes('secret-access-token-value'), 'stored encrypted');

  const inUse = await call(app, owner, 'DELETE', `/v1/onboarding/execution/${ws.id}/credentials/${cred.id}`);
  t.equal(inUse.status, 409);
  t.equal(inUse.body.code, 'credential_in_use');

  // A new key for api-key auth: the workspace moves to it, the login file is free.
  const next = await call(app, owner, 'PUT', `/v1/onboarding/execution/${ws.id}`, {
    mode: 'managed',
    agent: 'agent_2',
    auth: 'api-key',
    agent_key: 'key-zyxw-98765432',
  });
  t.equal(next.status, 200, JSON.stringify(next.body));
  const key = next.body.credentials.find((c) => c.kind === 'model_key_b');
  t.equal(key?.last4, '5432');
  t.equal(key?.in_use, true);
  t.equal(next.body.credentials.find((c) => c.id === cred.id)?.in_use, false);
  const del = await call(app, owner, 'DELETE', `/v1/onboarding/execution/${ws.id}/credentials/${cred.id}`);
  t.equal(del.status, 200);
  t.notOk(del.body.credentials.some((c) => c.id === cred.id));
  const audit = await app
    .db('audit_entries')
    .where({ org_id: owner.organization.id })
    .whereIn('action', ['credential.created', 'credential.deleted'])
    .select('action', 'metadata');
  t.equal(audit.filter((a: { action: string }) => a.action === 'credential.created').length, 2);
  t.equal(audit.filter((a: { action: string }) => a.action === 'credential.deleted').length, 1);
  t.notOk(JSON.stringify(audit).includes('key-zyxw-98765432'));

  const cloud = await call(app, owner, 'PUT', `/v1/onboarding/execution/${ws.id}`, {
    mode: 'managed',
    agent: 'agent_1',
    auth: 'cloud_a',
    cloud_auth: {
      region: 'eu-west-1',
      role_arn: 'arn:role/patchwell',
      secret_access_key: 'wJalrXUtnFEMI-EXAMPLEKEY-9Qz7',
    },
  });
  t.equal(cloud.status, 200, JSON.stringify(cloud.body));
  t.same(
    cloud.body.cloud_auth,
    { region: 'eu-west-1', role_arn: 'arn:role/patchwell', secret_access_key: '…9Qz7' },
    'only the public part of cloud auth comes back',
  );
  t.equal(cloud.body.credentials.find((c) => c.kind === 'cloud_a')?.in_use, true);
  t.notOk(JSON.stringify(cloud.body).includes('wJalrXUtnFEMI'));

  const bad = await call(app, owner, 'PUT', `/v1/onboarding/execution/${ws.id}`, {
    mode: 'runner',
    agent: 'agent_1',
    auth: 'account_login',
    transport: 'container',
    codex_auth_json: 'not json',
  });
  t.equal(bad.status, 400);
});

t.test('another organization’s workspace answers 404', async (t) => {
  const a = await signUp(app);
  const b = await signUp(app);
  const ws = await createWorkspace(app, a, 'Private');
  t.equal((await call(app, b, 'GET', `/v1/onboarding/execution/${ws.id}`)).status, 404);
  t.equal(
    (
      await call(app, b, 'PUT', `/v1/onboarding/execution/${ws.id}`, {
        mode: 'managed',
        agent: 'builtin',
        auth: 'api-key',
      })
    ).status,
    404,
  );
  t.equal((await call(app, b, 'POST', '/v1/onboarding/workspace', { workspace_id: ws.id })).status, 404);
  t.equal((await call(app, b, 'DELETE', `/v1/onboarding/execution/${ws.id}/credentials/cred_x`)).status, 404);
  t.equal((await call(app, b, 'GET', '/v1/onboarding/metrics')).status, 403, 'metrics are for staff');
  t.equal((await call(app, b, 'GET', '/v1/onboarding/demo')).status, 404, 'no demo yet');
});

t.test('the OpenAPI document lists the 15 onboarding operations and stays valid', async (t) => {
  const { Validator } = await import('@seriousme/openapi-schema-validator');
  const res = await app.server.inject({ method: 'GET', url: '/v1/openapi.json' });
  const doc = JSON.parse(res.payload) as OpenApiDocument;
  const ops: Array<[HttpMethod, string]> = [
    ['get', '/v1/onboarding'],
    ['post', '/v1/onboarding/agent'],
    ['post', '/v1/onboarding/complete'],
    ['get', '/v1/onboarding/demo'],
    ['post', '/v1/onboarding/demo'],
    ['post', '/v1/onboarding/demo/consent'],
    ['post', '/v1/onboarding/demo/retry'],
    ['post', '/v1/onboarding/demo/workspace'],
    ['get', '/v1/onboarding/execution/{workspaceId}'],
    ['put', '/v1/onboarding/execution/{workspaceId}'],
    ['delete', '/v1/onboarding/execution/{workspaceId}/credentials/{credentialId}'],
    ['get', '/v1/onboarding/metrics'],
    ['post', '/v1/onboarding/repository'],
    ['post', '/v1/onboarding/steps/{step}'],
    ['post', '/v1/onboarding/workspace'],
  ];
  for (const [method, path] of ops)
    t.same(doc.paths[path]?.[method]?.tags, ['onboarding'], `${method.toUpperCase()} ${path}`);
  for (const name of ['Onboarding', 'DemoRun', 'ExecutionSettings', 'Credential', 'OnboardingRepository'])
    t.ok(doc.components.schemas[name], `component ${name}`);
  const result = await new Validator().validate(JSON.parse(res.payload) as Record<string, unknown>);
  t.ok(result.valid, JSON.stringify(result.errors ?? []).slice(0, 2000));
});
