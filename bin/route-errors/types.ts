/** The shape of core/http/route-errors.generated.json, which the OpenAPI builder reads. */
export interface RouteError {
  status: number;
  code: string;
}

export interface UnresolvedError {
  status: number | null;
  code: string | null;
  /** File (relative to the root) of the error factory call. */
  file: string;
  /** The argument the walk could not evaluate. */
  expression: string;
}

export interface RouteErrorsFile {
  $comment: string;
  /** operationId → the errors its handler can give. */
  operations: Record<string, RouteError[]>;
  /** hapi auth strategy → the errors its resolvers give (every route that requires it can answer them). */
  strategies: Record<string, RouteError[]>;
  /** operationId → what the walk could not evaluate (the route declares those codes itself). */
  unresolved: Record<string, UnresolvedError[]>;
}
