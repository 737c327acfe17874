/** Types of the OpenAPI 3.1 document the service publishes (see openapi.ts). */

export type JsonSchema = { [key: string]: unknown };
export type SecurityRequirement = Record<string, string[]>;
export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
export type SecurityName = 'session' | 'bearer' | 'jobToken' | 'widgetKey';

export interface OpenApiParameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  deprecated?: boolean;
  style?: 'form';
  explode?: boolean;
  schema: JsonSchema;
}

export interface OpenApiMediaType {
  schema?: JsonSchema;
  example?: unknown;
}

export interface OpenApiHeader {
  description?: string;
  schema: JsonSchema;
}

export interface OpenApiResponse {
  description: string;
  headers?: Record<string, OpenApiHeader>;
  content?: Record<string, OpenApiMediaType>;
}

export type OpenApiRef = { $ref: string };

export interface OpenApiRequestBody {
  required: boolean;
  description?: string;
  content: Record<string, OpenApiMediaType>;
}

export interface OpenApiOperation {
  operationId: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: OpenApiParameter[];
  requestBody?: OpenApiRequestBody;
  responses: Record<string, OpenApiResponse | OpenApiRef>;
  security: SecurityRequirement[];
  /** An operation beyond the spec (`plugins.patchwell.extension` says why, in the description). */
  'x-extension'?: true;
}

export type OpenApiPathItem = Partial<Record<HttpMethod, OpenApiOperation>>;

export interface OpenApiDocument {
  openapi: '3.1.0';
  info: { title: string; version: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags: { name: string; description?: string }[];
  paths: Record<string, OpenApiPathItem>;
  components: {
    schemas: Record<string, JsonSchema>;
    responses: Record<string, OpenApiResponse>;
    /** The schemes some operation uses. */
    securitySchemes: Partial<Record<SecurityName, JsonSchema>>;
  };
}

export interface OpenApiOptions {
  title: string;
  version: string;
  description?: string;
  /** Base URL of the service (PUBLIC_BASE_URL); paths already carry `/v1`. */
  serverUrl?: string;
  /** Descriptions of tags (spec sections), by tag name; they win over the built-in ones (openapi-tags.ts). */
  tagDescriptions?: Record<string, string>;
  /** The errors derived from the code (default: core/http/route-errors.generated.json). */
  routeErrors?: {
    operations: Record<string, { status: number; code: string }[]>;
    strategies: Record<string, { status: number; code: string }[]>;
  };
}
