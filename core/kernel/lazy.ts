/**
 * A module that only some requests need, loaded with the first of them instead of at every start
 * (the MCP SDK, SAML's XML stack, the OIDC client, MIME composition): a start loads only what
 * serving its first request needs (docs/boot.md). The import runs once; a failed import is tried
 * again by the next caller instead of failing every later one.
 */
export function lazyImport<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | undefined;
  return () =>
    (pending ??= load().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
}
