import type { ResponseObject, ResponseToolkit } from '@hapi/hapi';
import type Joi from 'joi';
import { backedBy, type JoiBacked } from './validators.js';

/**
 * Answers whose JSON the handler already holds as text: a hot list whose items the database
 * keeps as JSON (the ticket list) sends them on without parsing and serializing them again.
 * The route still declares its answer with joi, through `answersJson(schema)`: OpenAPI documents
 * that schema, and response validation (`server.validateResponses`, on in tests) parses the text
 * and validates it as if the handler had returned the object.
 */
export function jsonText(h: ResponseToolkit, text: string): ResponseObject {
  return h.response(text).type('application/json; charset=utf-8');
}

/** `response.status[code]` for a route that answers with `jsonText` (or with an object). */
export function answersJson(
  schema: Joi.Schema,
): JoiBacked<(value: unknown, options: Joi.ValidationOptions) => Promise<unknown>> {
  return backedBy(async (value: unknown, options: Joi.ValidationOptions) => {
    const parsed = typeof value === 'string' ? (JSON.parse(value) as unknown) : value;
    await schema.validateAsync(parsed, options);
    return value;
  }, schema);
}
