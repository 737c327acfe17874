import type { components } from './schema';

/** The body of every failure the API answers (`components.schemas.Error`). */
export type ErrorBody = components['schemas']['Error'];

/** One entry of `details.errors` in a 400 `invalid_request`: `path` is `payload.email`, `query.limit`… */
export interface FieldError {
  path: string;
  message: string;
}

/**
 * A non-2xx answer of the API, as the API stated it: status, stable `code`, message and details.
 * Thrown by the client's middleware, so every query and mutation fails with one.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  readonly status: number;
  readonly code: string;
  readonly details: Record<string, unknown>;
  readonly retryAfter: number | null;

  constructor(status: number, body: Partial<ErrorBody> | null, retryAfter: number | null = null) {
    super(body?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = body?.code ?? (status === 0 ? 'network_error' : `http_${status}`);
    this.details = body?.details ?? {};
    this.retryAfter = retryAfter;
  }

  /** `details.errors` of a 400 `invalid_request` (empty otherwise). */
  get fieldErrors(): FieldError[] {
    const errors = this.details.errors;
    if (!Array.isArray(errors)) return [];
    return errors.filter(isFieldError);
  }

  /** The message of one body field (`email` matches `payload.email`), or undefined. */
  fieldError(name: string): string | undefined {
    return this.fieldErrors.find((e) => e.path === `payload.${name}` || e.path === name)?.message;
  }
}

const isFieldError = (e: unknown): e is FieldError =>
  typeof e === 'object' &&
  e !== null &&
  'path' in e &&
  typeof e.path === 'string' &&
  'message' in e &&
  typeof e.message === 'string';

export const isApiError = (e: unknown): e is ApiError => e instanceof ApiError;
