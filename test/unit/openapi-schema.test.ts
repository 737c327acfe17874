import t, { type Test } from 'tap';
import Joi from 'joi';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import { SchemaConverter } from '../../core/http/openapi-schema.js';
import type { JsonSchema } from '../../core/http/openapi-types.js';
import { closePayload } from '../../plugins/tickets/schemas/index.js';
import { createConnectionPayload } from '../../plugins/sso/schemas.js';
import { streamPayload } from '../../plugins/audit/schemas.js';

/**
 * A body the documented schema accepts is one joi accepts, and the other way round: the JSON
 * Schema of the document is checked with ajv (2020-12, the dialect of OpenAPI 3.1) against the
 * joi schema that validates the request.
 */
function documented(joi: Joi.Schema): { schema: JsonSchema; accepts: (body: unknown) => boolean } {
  const defs: Record<string, JsonSchema> = {};
  const schema = new SchemaConverter().parse(joi.describe(), defs, 1);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  // A CommonJS module whose default export is the plugin itself (its types say `.default`).
  (formats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile({ ...schema, components: { schemas: defs } });
  return { schema, accepts: (body) => validate(body) };
}

function agree(t: Test, joi: Joi.Schema, bodies: { body: unknown; valid: boolean; why: string }[]): void {
  const doc = documented(joi);
  for (const { body, valid, why } of bodies) {
    t.equal(!joi.validate(body).error, valid, `joi: ${why}`);
    t.equal(doc.accepts(body), valid, `document: ${why}`);
  }
}

t.test('closing a ticket as a duplicate: the original is required, and only then', (t) => {
  agree(t, closePayload, [
    {
      body: { reason: 'duplicate', duplicate_of_ticket_id: 'tk_01' },
      valid: true,
      why: 'a duplicate names its original',
    },
    { body: { reason: 'duplicate' }, valid: false, why: 'a duplicate without the original' },
    {
      body: { reason: 'duplicate', duplicate_of_ticket_id: null },
      valid: false,
      why: 'a duplicate with a null original',
    },
    { body: { reason: 'resolved' }, valid: true, why: 'another reason needs none' },
    { body: { reason: 'resolved', duplicate_of_ticket_id: null }, valid: true, why: 'another reason may send null' },
    {
      body: { reason: 'resolved', duplicate_of_ticket_id: 'tk_01' },
      valid: true,
      why: 'another reason may send one (ignored)',
    },
  ]);
  const { schema } = documented(closePayload);
  t.notOk(JSON.stringify(schema).includes('"oneOf"'), 'no oneOf of identical branches');
  t.end();
});

t.test('an SSO connection: OIDC fields for oidc, SAML fields for saml', (t) => {
  const oidc = {
    protocol: 'oidc',
    name: 'Okta',
    issuer: 'https://idp.example.com',
    client_id: 'c',
    client_secret: 's',
  };
  const saml = { protocol: 'saml', name: 'ADFS', metadata_xml: '<EntityDescriptor/>' };
  agree(t, createConnectionPayload, [
    { body: oidc, valid: true, why: 'an OIDC connection' },
    { body: { ...oidc, client_secret: undefined }, valid: false, why: 'OIDC without its secret' },
    { body: { ...oidc, metadata_xml: '<x/>' }, valid: false, why: 'OIDC with a SAML field' },
    { body: saml, valid: true, why: 'a SAML connection by metadata' },
    {
      body: {
        protocol: 'saml',
        name: 'ADFS',
        entity_id: 'urn:x',
        sso_url: 'https://idp.example.com/sso',
        certificate: 'MIIB',
      },
      valid: true,
      why: 'a SAML connection by parts',
    },
    { body: { ...saml, issuer: 'https://idp.example.com' }, valid: false, why: 'SAML with an OIDC field' },
  ]);
  const { schema } = documented(createConnectionPayload);
  const props = schema.properties as Record<string, JsonSchema>;
  t.same(props.metadata_xml, { type: 'string', maxLength: 200000 }, 'a SAML field is a string, not `not: {}`');
  t.end();
});

t.test('the audit stream URL is https only', (t) => {
  agree(t, streamPayload, [
    { body: { kind: 'https', url: 'https://logs.example.com/in' }, valid: true, why: 'an https URL' },
    { body: { kind: 'https', url: 'http://logs.example.com/in' }, valid: false, why: 'an http URL' },
    { body: { kind: 'https', url: 42 }, valid: false, why: 'not a string' },
    { body: { kind: 'https' }, valid: false, why: 'https without its URL' },
    { body: { kind: 'cloudwatch', url: 'https://logs.example.com/in' }, valid: false, why: 'a URL for CloudWatch' },
    {
      body: {
        kind: 'cloudwatch',
        cloudwatch: { region: 'eu-west-1', log_group: 'g', log_stream: 's', access_key_id: 'AKIAABCDEFGHIJKLMNOP' },
      },
      valid: true,
      why: 'CloudWatch with its settings',
    },
  ]);
  t.end();
});

t.test('xor, or and Joi.any() say what joi says', (t) => {
  const domain = Joi.object({
    workspace_id: Joi.string(),
    brand_profile_id: Joi.string(),
    domain: Joi.string().required(),
  });
  agree(t, domain.xor('workspace_id', 'brand_profile_id'), [
    { body: { workspace_id: 'ws', domain: 'x.io' }, valid: true, why: 'one of the two' },
    { body: { brand_profile_id: 'bp', domain: 'x.io' }, valid: true, why: 'the other one' },
    { body: { workspace_id: 'ws', brand_profile_id: 'bp', domain: 'x.io' }, valid: false, why: 'both' },
    { body: { domain: 'x.io' }, valid: false, why: 'neither' },
  ]);
  agree(t, Joi.object({ email: Joi.string(), user_id: Joi.string() }).or('email', 'user_id'), [
    { body: { email: 'a@b.c' }, valid: true, why: 'or: one' },
    { body: { email: 'a@b.c', user_id: 'u' }, valid: true, why: 'or: both' },
    { body: {}, valid: false, why: 'or: none' },
  ]);
  const before = Joi.object({ before: Joi.any(), after: Joi.any().allow(null) });
  t.same(
    documented(before).schema.properties,
    { before: {}, after: {} },
    'any value: no type (not every type, arrays without items)',
  );
  agree(t, before, [{ body: { before: [1, 'a'], after: null }, valid: true, why: 'any value' }]);
  t.end();
});

t.test('a when on a key that is not a sibling is left out, never turned into a refusal', (t) => {
  const schema = Joi.object({ a: Joi.string().when('$mode', { is: 'strict', then: Joi.required() }) });
  const { schema: out } = documented(schema);
  t.same(out.properties, { a: { type: 'string' } });
  t.notOk(out.if);
  t.end();
});
