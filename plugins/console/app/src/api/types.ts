import type { components } from './schema';
import type { paths } from './schema';

/** A shared schema of the document by name: `Schema<'AuthContext'>`. Never copy an API type by hand. */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** The JSON body an operation takes: `RequestBody<'/v1/me', 'patch'>`. */
export type RequestBody<P extends keyof paths, M extends 'post' | 'put' | 'patch'> = paths[P][M] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

/** The 200/201 JSON answer of an operation: `ResponseBody<'/v1/onboarding', 'get'>`. */
export type ResponseBody<
  P extends keyof paths,
  M extends 'get' | 'post' | 'put' | 'patch' | 'delete',
> = paths[P][M] extends {
  responses: infer R;
}
  ? R extends { 200: { content: { 'application/json': infer B } } }
    ? B
    : R extends { 201: { content: { 'application/json': infer B } } }
      ? B
      : never
  : never;
