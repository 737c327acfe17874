import t from 'tap';
import Hapi from '@hapi/hapi';
import Joi from 'joi';
import { answersJson, jsonText } from '../../core/http/json-text.js';
import { schemaOf } from '../../core/http/validators.js';
import { buildOpenApiDocument } from '../../core/http/openapi.js';

const Page = Joi.object({
  items: Joi.array()
    .items(Joi.object({ id: Joi.string().required() }))
    .required(),
  next_cursor: Joi.string().allow(null).required(),
}).id('Page');

async function server(text: string, validate: boolean) {
  const s = Hapi.server({ routes: { response: { sample: validate ? 100 : 0, failAction: 'error' } } });
  s.route({
    method: 'GET',
    path: '/p',
    options: {
      id: 'textPage',
      response: { status: { 200: answersJson(Page) } },
      handler: (_r, h) => jsonText(h, text),
    },
  });
  s.route({
    method: 'GET',
    path: '/o',
    options: {
      id: 'objectPage',
      response: { status: { 200: answersJson(Page) } },
      handler: () => JSON.parse(text) as object,
    },
  });
  await s.initialize();
  return s;
}

t.test('an answer written as JSON text goes out as it is, typed as JSON', async (t) => {
  const text = '{"items":[{"id":"a"}],"next_cursor":null}';
  const s = await server(text, true);
  const res = await s.inject('/p');
  t.equal(res.statusCode, 200);
  t.equal(res.payload, text, 'byte for byte');
  t.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  t.equal(Number(res.headers['content-length']), Buffer.byteLength(text));
  t.equal((await s.inject('/o')).statusCode, 200, 'an object answer is validated the same way');
});

t.test('response validation parses the text and holds it to the schema', async (t) => {
  for (const bad of [
    '{"items":[{"id":1}],"next_cursor":null}',
    '{"items":[]}',
    '{"items":[],"next_cursor":null,"extra":1}',
  ]) {
    const s = await server(bad, true);
    t.equal((await s.inject('/p')).statusCode, 500, `refused: ${bad}`);
    t.equal((await s.inject('/o')).statusCode, 500, 'and as an object');
  }
  const off = await server('{"items":[{"id":1}],"next_cursor":null}', false);
  t.equal((await off.inject('/p')).statusCode, 200, 'not validated when validation is off (production)');
});

t.test('OpenAPI documents the joi schema behind it', async (t) => {
  const s = await server('{}', false);
  t.equal(schemaOf(answersJson(Page)), Page);
  const doc = buildOpenApiDocument(s, { title: 't', version: '1' });
  const ok = (
    doc.paths['/p'] as {
      get: { responses: Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }> };
    }
  ).get.responses['200'];
  t.match(
    JSON.stringify(ok?.content?.['application/json']?.schema),
    /Page|items/,
    'the page schema, not a bare object',
  );
});
