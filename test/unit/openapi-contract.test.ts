import t from 'tap';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Hapi from '@hapi/hapi';
import Joi from 'joi';
import { startTestApp } from '../helpers/app.js';
import type { ApiError } from '../helpers/api-types.js';
import { conflict, httpError, registerErrorEnvelope } from '../../core/http/errors.js';
import {
  DERIVED_ROUTE_ERRORS,
  registerErrorContractCheck,
  routeErrorContract,
  type DerivedRouteErrors,
  type OpenApiDocument,
  type OpenApiOperation,
  type OpenApiResponse,
} from '../../core/http/openapi.js';
import { patchwellOptions } from '../../core/http/openapi-route.js';
import generated from '../../core/http/route-errors.generated.json' with { type: 'json' };

const SPEC_FILE = join(import.meta.dirname, '../../../shared/spec/operations.json');
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

interface SpecOperations {
  total_operations: number;
  operations: { section: string; method: string; path: string }[];
  count_only_sections: Record<string, number>;
}

function operations(doc: OpenApiDocument): { method: string; path: string; op: OpenApiOperation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.filter((m) => item[m]).map((m) => ({ method: m.toUpperCase(), path, op: item[m]! })),
  );
}

/** `409: code_a code_b` lines of one operation's error answers, from the document itself. */
function errorCodes(doc: OpenApiDocument, operationId: string): Record<string, string[]> {
  const found = operations(doc).find((o) => o.op.operationId === operationId);
  if (!found) throw new Error(`no operation ${operationId}`);
  const out: Record<string, string[]> = {};
  for (const [status, answer] of Object.entries(found.op.responses)) {
    if (Number(status) < 400) continue;
    const ref = (answer as { $ref?: string }).$ref;
    if (ref) {
      const shared = doc.components.responses[ref.split('/').pop()!];
      out[status] = [(shared.content?.['application/json']?.example as { code: string }).code];
      continue;
    }
    const schema = (answer as OpenApiResponse).content?.['application/json']?.schema as {
      allOf?: unknown[];
      anyOf?: { allOf?: unknown[] }[];
    };
    const coded = (schema.allOf ?? schema.anyOf?.find((s) => s.allOf)?.allOf)?.[1] as {
      properties: { code: { enum: string[] } };
    };
    out[status] = [...(schema.anyOf ? ['invalid_request'] : []), ...coded.properties.code.enum].sort();
  }
  return out;
}

t.test(
  "the document of the whole service: the spec's 241 operations, the extensions marked, every error declared",
  async (t) => {
    const app = await startTestApp(t, {
      plugins: { fixes: { enabled: true }, runner: { enabled: true }, mcp: { enabled: true } },
    });
    const res = await app.server.inject('/v1/openapi.json');
    t.equal(res.statusCode, 200);
    const doc = JSON.parse(res.payload) as OpenApiDocument;
    const all = operations(doc);

    t.test('operations beyond the spec say so, and why', (t) => {
      const extensions = all.filter((o) => o.op['x-extension']);
      t.equal(all.length - extensions.length, 241, "the spec's operations number exactly 241");
      t.ok(
        extensions.some((o) => o.op.operationId === 'listOssSponsorshipRequests'),
        'the sponsorship review is an extension',
      );
      t.ok(extensions.some((o) => o.op.operationId === 'decideOssSponsorshipRequest'));
      for (const { op } of extensions)
        t.match(op.description, /Extension \(not in the spec\): \S/, `${op.operationId} says why it exists`);
      for (const { op } of all.filter((o) => !o.op['x-extension']))
        t.notMatch(op.description ?? '', /Extension \(not in the spec\)/);
      t.end();
    });

    t.test(
      "the spec's own list",
      { skip: existsSync(SPEC_FILE) ? false : 'the spec (../shared/spec) is not beside this checkout' },
      (t) => {
        const spec = JSON.parse(readFileSync(SPEC_FILE, 'utf8')) as SpecOperations;
        const norm = (p: string) => p.replace(/\{[^}]+\}/g, '{}');
        const contract = all.filter((o) => !o.op['x-extension']);
        const listed = new Set(spec.operations.map((o) => `${o.method} ${norm(o.path)}`));
        const missing = [...listed].filter((k) => !contract.some((o) => `${o.method} ${norm(o.path)}` === k));
        t.same(missing, [], 'every operation the spec lists is in the document, not marked as an extension');
        const byTag = new Map<string, number>();
        for (const o of contract.filter((o) => !listed.has(`${o.method} ${norm(o.path)}`)))
          byTag.set(o.op.tags![0], (byTag.get(o.op.tags![0]) ?? 0) + 1);
        t.same(
          Object.fromEntries([...byTag].sort()),
          Object.fromEntries(Object.entries(spec.count_only_sections).sort()),
          'the other operations fill the sections the spec only counts, exactly',
        );
        t.equal(contract.length, spec.total_operations);
        t.end();
      },
    );

    t.test('the errors the issue names are declared, with their codes', (t) => {
      t.match(errorCodes(doc, 'ignoreErrorGroup'), { 409: ['group_has_open_ticket'] });
      t.match(errorCodes(doc, 'openErrorGroupTicket'), {
        402: ['plan_limit_reached'],
        409: ['group_not_watching'],
        422: ['no_repository'],
      });
      t.match(errorCodes(doc, 'fixTicketInManaged'), {
        402: ['plan_limit_reached'],
        409: ['fix_job_active', 'invalid_transition', 'no_fix_executor'],
      });
      t.match(errorCodes(doc, 'chooseOnboardingAgent'), { 422: ['forbidden_combination'] });
      t.match(errorCodes(doc, 'updateExecutionSettings'), { 422: ['forbidden_combination'] });
      t.match(errorCodes(doc, 'verifyEmail'), { 409: ['signed_in_as_other_user'] });
      t.match(errorCodes(doc, 'createWorkspace'), { 402: ['plan_limit_reached'], 409: ['slug_taken'] });
      t.ok(errorCodes(doc, 'startOnboardingDemo')[409]?.includes('repository_required'));
      t.ok(
        errorCodes(doc, 'sendTicketDraft')[409]?.includes('white_label_not_ready'),
        "a code the brand plugin's guard returns",
      );
      t.same(errorCodes(doc, 'getHealth'), { 400: ['invalid_request'], 500: ['internal_error'] });
      t.end();
    });

    t.test('every route was walked, and what the walk could not resolve the route declares', (t) => {
      const derived = generated as DerivedRouteErrors & { unresolved: Record<string, { status: number | null }[]> };
      const routes = app.server.table().filter((r) => typeof r.settings.id === 'string');
      const unwalked = routes.map((r) => r.settings.id as string).filter((id) => !derived.operations[id]);
      t.same(unwalked, [], "the generator found every operation's handler");
      for (const [id, sites] of Object.entries(derived.unresolved)) {
        const route = routes.find((r) => r.settings.id === id);
        const declared = patchwellOptions(route?.settings.plugins).errors ?? [];
        for (const site of sites)
          t.ok(
            declared.some((e) => site.status === null || e.status === site.status),
            `${id} declares its ${site.status ?? '?'} codes`,
          );
      }
      t.end();
    });

    t.test('an answer the entry declares passes the check unchanged', async (t) => {
      const missing = await app.server.inject({ method: 'GET', url: '/v1/tickets/tk_nope' });
      t.equal(missing.statusCode, 401, 'no credentials: 401 unauthenticated, declared');
      t.equal((JSON.parse(missing.payload) as ApiError).code, 'unauthenticated');
      const contract = routeErrorContract(app.server.table().find((r) => r.settings.id === 'getTicket')!);
      t.same(contract.get(401), ['unauthenticated']);
      t.same(contract.get(404), ['not_found']);
    });
  },
);

t.test('in tests, an error answer its operation does not declare becomes a 500 that names it', async (t) => {
  const server = Hapi.server({
    routes: {
      validate: {
        failAction: (_r, _h, err) => {
          throw err ?? new Error('invalid request');
        },
      },
    },
  });
  registerErrorEnvelope(server, () => {});
  const derived: DerivedRouteErrors = {
    operations: { closeThing: [{ status: 409, code: 'invalid_transition' }] },
    strategies: {},
  };
  registerErrorContractCheck(server, derived, true);
  let answer: () => never = () => {
    throw conflict('invalid_transition', 'Already closed');
  };
  server.route([
    {
      method: 'POST',
      path: '/v1/things/{id}/close',
      options: { id: 'closeThing', tags: ['things'], auth: false, handler: () => answer() },
    },
    {
      method: 'POST',
      path: '/v1/other',
      options: {
        id: 'notGenerated',
        tags: ['things'],
        auth: false,
        handler: () => {
          throw conflict('anything', 'Not checked');
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/declared',
      options: {
        id: 'closeThingToo',
        tags: ['things'],
        auth: false,
        validate: { payload: Joi.object({ a: Joi.string() }) },
        plugins: { patchwell: { errors: [{ status: 423, code: 'locked' }] } },
        handler: () => {
          throw httpError(423, 'locked', 'Locked');
        },
      },
    },
  ]);
  derived.operations.closeThingToo = [];

  const declared = await server.inject({ method: 'POST', url: '/v1/things/tk_1/close' });
  t.equal(declared.statusCode, 409);
  t.equal((JSON.parse(declared.payload) as ApiError).code, 'invalid_transition', 'declared: unchanged');

  answer = () => {
    throw httpError(409, 'surprise', 'Not in the contract');
  };
  const undeclared = await server.inject({ method: 'POST', url: '/v1/things/tk_1/close' });
  t.equal(undeclared.statusCode, 500);
  const body = JSON.parse(undeclared.payload) as ApiError;
  t.equal(body.code, 'undeclared_error');
  t.match(
    body.message,
    /POST \/v1\/things\/\{id\}\/close \(closeThing\) answered 409 surprise, which its OpenAPI entry does not declare/,
  );
  t.match(body.message, /run `npm run openapi:errors`, or declare it in plugins.patchwell.errors/);
  t.same(body.details, { operation: 'closeThing', status: 409, code: 'surprise', answer: 'Not in the contract' });

  answer = () => {
    throw httpError(404, 'not_found', 'No such thing');
  };
  t.equal(
    (await server.inject({ method: 'POST', url: '/v1/things/tk_1/close' })).statusCode,
    404,
    "a path id: 404 not_found is the core's",
  );

  t.equal(
    (await server.inject({ method: 'POST', url: '/v1/other' })).statusCode,
    409,
    'an operation the generator has not seen is not checked',
  );
  t.equal(
    (await server.inject({ method: 'POST', url: '/v1/declared', payload: { a: 'x' } })).statusCode,
    423,
    'plugins.patchwell.errors declares a code',
  );
  const malformed = await server.inject({
    method: 'POST',
    url: '/v1/declared',
    payload: '{"a":',
    headers: { 'content-type': 'application/json' },
  });
  t.equal(malformed.statusCode, 400, "hapi's own errors carry no code and pass");
  t.ok(DERIVED_ROUTE_ERRORS.operations.getTicket, "the service's own map is the generated file");
});
