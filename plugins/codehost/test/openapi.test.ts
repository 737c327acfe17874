import t from 'tap';
import type { HttpMethod, OpenApiDocument } from '../../../core/http/openapi-types.js';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startCodehostApp } from './helpers.js';

const OPERATIONS: Record<string, [HttpMethod, string, string]> = {
  getCodeHost: ['get', '/v1/codehost', 'codehost'],
  startCodeHostInstall: ['post', '/v1/codehost/install', 'codehost'],
  linkCodeHostInstallation: ['post', '/v1/codehost/installations', 'codehost'],
  unlinkCodeHostInstallation: ['delete', '/v1/codehost/installations/{id}', 'codehost'],
  listCodeHostInstallationRepositories: ['get', '/v1/codehost/installations/{id}/repositories', 'codehost'],
  syncCodeHostInstallation: ['post', '/v1/codehost/installations/{id}/sync', 'codehost'],
  getCodeHostOssSettings: ['get', '/v1/codehost/oss/{workspaceId}', 'codehost'],
  updateCodeHostOssSettings: ['patch', '/v1/codehost/oss/{workspaceId}', 'codehost'],
  receiveCodeHostWebhook: ['post', '/v1/webhooks/codehost', 'codehost'],
  listRepositories: ['get', '/v1/repositories', 'repositories'],
  connectRepository: ['post', '/v1/repositories', 'repositories'],
  getRepository: ['get', '/v1/repositories/{id}', 'repositories'],
  deleteRepository: ['delete', '/v1/repositories/{id}', 'repositories'],
  setRepositoryAgentKey: ['put', '/v1/repositories/{id}/agent-key', 'repositories'],
  readRepositoryGuidelines: ['post', '/v1/repositories/{id}/guidelines', 'repositories'],
  createRepositoryLabels: ['post', '/v1/repositories/{id}/labels', 'repositories'],
  openRepositoryOnboardingPr: ['post', '/v1/repositories/{id}/onboarding-pr', 'repositories'],
  refreshRepository: ['post', '/v1/repositories/{id}/refresh', 'repositories'],
  startCodeHostSignIn: ['get', '/v1/auth/codehost/start', 'auth'],
  completeCodeHostSignIn: ['get', '/v1/auth/codehost/callback', 'auth'],
};

t.test(
  'the OpenAPI document lists the 20 code-host operations and stays valid; the local pages stay out',
  async (t) => {
    const app = await startCodehostApp(t);
    const res = await app.server.inject({ method: 'GET', url: '/v1/openapi.json' });
    t.equal(res.statusCode, 200);
    const doc = JSON.parse(res.payload) as OpenApiDocument;
    for (const [id, [method, path, tag]] of Object.entries(OPERATIONS)) {
      const op = doc.paths[path]?.[method];
      t.equal(op?.operationId, id, `${method.toUpperCase()} ${path}`);
      t.same(op?.tags, [tag], `${id} is tagged ${tag}`);
    }
    t.same(
      Object.keys(doc.paths).filter((p) => p.startsWith('/codehost/local')),
      [],
      'no local host page is an operation',
    );
    t.ok(
      doc.paths['/v1/webhooks/codehost'].post?.requestBody?.content['application/json'],
      'the webhook documents its raw JSON body',
    );
    const result = await new Validator().validate(JSON.parse(res.payload) as Record<string, unknown>);
    t.ok(result.valid, JSON.stringify(result.errors ?? []).slice(0, 2000));
  },
);
