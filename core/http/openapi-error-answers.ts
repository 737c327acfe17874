/**
 * The error answers of the OpenAPI document: the Error and ValidationError envelopes, the
 * standard answers defined once in `components.responses`, and an operation's answers at one
 * status (its codes as an enum). openapi.ts places them.
 */
import { STATUS_CODES } from 'node:http';
import type { JsonSchema, OpenApiHeader, OpenApiRef, OpenApiResponse } from './openapi-types.js';

export const errorSchema: JsonSchema = {
  type: 'object',
  description: 'The body of every failure. `code` is stable snake_case; clients branch on it.',
  required: ['statusCode', 'error', 'message', 'code'],
  properties: {
    statusCode: { type: 'integer', description: 'HTTP status code', examples: [404] },
    error: { type: 'string', description: 'HTTP reason phrase', examples: ['Not Found'] },
    message: { type: 'string', description: 'Human-readable explanation' },
    code: {
      type: 'string',
      pattern: '^[a-z][a-z0-9_]*$',
      description: 'Stable machine-readable code',
      examples: ['not_found'],
    },
    details: { type: 'object', additionalProperties: true, description: 'Code-specific details' },
  },
  additionalProperties: false,
};

export const validationErrorSchema: JsonSchema = {
  allOf: [
    { $ref: '#/components/schemas/Error' },
    {
      type: 'object',
      required: ['details'],
      properties: {
        code: { const: 'invalid_request' },
        details: {
          type: 'object',
          required: ['errors'],
          properties: {
            errors: {
              type: 'array',
              items: {
                type: 'object',
                required: ['path', 'message'],
                properties: {
                  path: {
                    type: 'string',
                    description: 'Dotted path of the field, prefixed by its source (payload, query, params, headers)',
                    examples: ['payload.email'],
                  },
                  message: { type: 'string' },
                },
              },
            },
          },
        },
      },
    },
  ],
};

interface StandardError {
  status: number;
  name: string;
  code: string;
  description: string;
  schema?: string;
  details?: Record<string, unknown>;
  headers?: Record<string, OpenApiHeader>;
}

const RETRY_AFTER: Record<string, OpenApiHeader> = {
  'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer', minimum: 1 } },
};

/** The answers whose only code is the standard one: defined once, referenced by every operation. */
export const STANDARD_ERRORS: StandardError[] = [
  {
    status: 400,
    name: 'BadRequest',
    code: 'invalid_request',
    description: 'The request is invalid; details.errors lists each field',
    schema: 'ValidationError',
    details: { errors: [{ path: 'payload.email', message: '"email" must be a valid email' }] },
  },
  { status: 401, name: 'Unauthenticated', code: 'unauthenticated', description: 'Credentials are missing or invalid' },
  { status: 403, name: 'Forbidden', code: 'forbidden', description: 'The caller may not do this' },
  {
    status: 404,
    name: 'NotFound',
    code: 'not_found',
    description: "No such resource (also for another organization's ids)",
  },
  { status: 413, name: 'PayloadTooLarge', code: 'payload_too_large', description: 'The request body is too large' },
  {
    status: 415,
    name: 'UnsupportedMediaType',
    code: 'unsupported_media_type',
    description: 'The request body has an unsupported Content-Type',
  },
  { status: 429, name: 'RateLimited', code: 'rate_limited', description: 'Too many requests', headers: RETRY_AFTER },
  {
    status: 500,
    name: 'InternalError',
    code: 'internal_error',
    description: 'An unexpected error; it has been reported (details.request_id)',
    details: { request_id: '1700000000000:host:1234:abcd:10000' },
  },
];

export function errorResponse(e: StandardError): OpenApiResponse {
  const example = {
    statusCode: e.status,
    error: STATUS_CODES[e.status] ?? 'Error',
    message: e.description,
    code: e.code,
    ...(e.details ? { details: e.details } : {}),
  };
  const response: OpenApiResponse = {
    description: `${e.description} (code \`${e.code}\`)`,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${e.schema ?? 'Error'}` }, example } },
  };
  if (e.headers) response.headers = e.headers;
  return response;
}

/** The answers of one operation at one status: the shared one, or its codes as an enum. */
export function errorAnswer(status: number, codes: string[]): OpenApiResponse | OpenApiRef {
  const standard = STANDARD_ERRORS.find((e) => e.status === status);
  if (standard && codes.length === 1 && codes[0] === standard.code)
    return { $ref: `#/components/responses/${standard.name}` };
  const reason = STATUS_CODES[status] ?? `Status ${status}`;
  const others = codes.filter((c) => !(status === 400 && c === 'invalid_request'));
  const coded: JsonSchema = {
    allOf: [
      { $ref: '#/components/schemas/Error' },
      { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: others } } },
    ],
  };
  // 400 invalid_request keeps its field list (ValidationError) beside the operation's other 400 codes.
  const schema =
    others.length === codes.length ? coded : { anyOf: [{ $ref: '#/components/schemas/ValidationError' }, coded] };
  const list = codes.map((c) => `\`${c}\``).join(', ');
  const response: OpenApiResponse = {
    description: `${reason}: ${list}`,
    content: {
      'application/json': {
        schema,
        example: { statusCode: status, error: reason, message: `${reason} (${others[0]})`, code: others[0] },
      },
    },
  };
  if (status === 429) response.headers = RETRY_AFTER;
  return response;
}
