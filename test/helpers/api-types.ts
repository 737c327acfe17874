/**
 * Test answers typed from the OpenAPI document (the console's generated `paths`, `npm run api:generate`): a call's
 * method and URL name the operation, and its body is that operation's success body. A URL the document does not
 * list answers `Record<string, unknown>`.
 */
import type { components, paths } from '../../plugins/console/app/src/api/schema.js';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';
export type ApiError = components['schemas']['Error'];
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

type Path = Extract<keyof paths, string>;
/** The path part of a URL, without its query or a trailing slash (the server strips one: `stripTrailingSlash`). */
type NoQuery<U extends string> = U extends `${infer P}?${string}` ? NoSlash<P> : NoSlash<U>;
type NoSlash<U extends string> = U extends `${infer P}/` ? (P extends '' ? U : P) : U;
type Segments<U extends string> = U extends `${infer A}/${infer B}` ? [A, ...Segments<B>] : [U];
/** Whether a URL's segments fit a path template's (`{id}` takes any one segment). */
type Fits<U extends string[], T extends string[]> = U extends [infer A extends string, ...infer R extends string[]]
  ? T extends [infer B extends string, ...infer S extends string[]]
    ? B extends `{${string}}`
      ? Fits<R, S>
      : A extends B
        ? Fits<R, S>
        : false
    : false
  : T extends []
    ? true
    : false;
/** The document's path a URL stands for: its own text when listed, else the templates whose segments it fits. */
export type PathOf<U extends string> =
  NoQuery<U> extends Path
    ? NoQuery<U>
    : { [K in Path]: Fits<Segments<NoQuery<U>>, Segments<K>> extends true ? K : never }[Path];

type Operation<M extends Method, K extends Path> = Lowercase<M> extends keyof paths[K] ? paths[K][Lowercase<M>] : never;
type Success = 200 | 201 | 202 | 203;
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type OkBody<O> = O extends { responses: infer R }
  ? { [S in keyof R & Success]: JsonOf<R[S]> }[keyof R & Success]
  : never;

/** The body a test reads: the operation's success body, or the error envelope's fields when it refused. */
export type Answer<M extends Method, U extends string> = [PathOf<U>] extends [never]
  ? Record<string, unknown>
  : [OkBody<Operation<M, PathOf<U>>>] extends [never]
    ? Partial<ApiError>
    : OkBody<Operation<M, PathOf<U>>> & Partial<ApiError>;
