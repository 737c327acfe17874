import { SourceMapConsumer } from 'source-map';

// Reading what clients send: the URL path a bundle is known by, and whether a text is a usable source map.

/**
 * The URL path a bundle is known by: `https://cdn.example.com/static/app.js?v=3` and
 * `~/static/app.js` (Sentry's "any host") both give `/static/app.js`. Null when it is no URL or path.
 */
export function bundlePath(fileOrUrl: string): string | null {
  let f = fileOrUrl.trim();
  if (!f) return null;
  if (f.startsWith('~/')) f = f.slice(1);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(f)) {
    try {
      const u = new URL(f);
      if (u.protocol !== 'http:' && u.protocol !== 'https:' && u.protocol !== 'file:') return null;
      f = u.pathname;
    } catch {
      return null;
    }
  }
  f = f.replace(/[?#].*$/, '');
  if (!f.startsWith('/')) return null;
  try {
    f = decodeURI(f);
  } catch {
    /* keep as sent */
  }
  return f.length <= 1000 ? f : null;
}

/**
 * A debug id in its one stored form (a UUID, lower case, with hyphens), as Sentry's tooling writes it into a map
 * (`debug_id`, or `debugId`) and SDK events name it (`debug_meta.images`). Null when it is no UUID.
 */
export function canonicalDebugId(raw: unknown): string | null {
  if (typeof raw !== 'string') return null;
  const hex = raw.trim().toLowerCase().replace(/-/g, '');
  if (!/^[0-9a-f]{32}$/.test(hex)) return null;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * Checks that a text is a source map (revision 3, plain or indexed): code `ok` with its source count and
 * debug id (null when it has none), else why not.
 */
export async function checkMap(
  text: string,
): Promise<{ code: string; message: string; sources?: number; debugId?: string | null }> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { code: 'invalid_json', message: 'The map is not JSON' };
  }
  const m = raw as {
    version?: unknown;
    mappings?: unknown;
    sources?: unknown;
    sections?: unknown;
    debug_id?: unknown;
    debugId?: unknown;
  };
  if (!m || typeof m !== 'object' || Array.isArray(m))
    return { code: 'invalid_source_map', message: 'The map is not a JSON object' };
  if (m.version !== 3)
    return { code: 'unsupported_version', message: 'Only source map revision 3 is supported ("version": 3)' };
  const indexed = Array.isArray(m.sections);
  if (!indexed && (typeof m.mappings !== 'string' || !Array.isArray(m.sources))) {
    return { code: 'invalid_source_map', message: 'A source map needs "sources" (an array) and "mappings" (a string)' };
  }
  const rawId = m.debug_id ?? m.debugId;
  const debugId = rawId === undefined || rawId === null ? null : canonicalDebugId(rawId);
  if (rawId !== undefined && rawId !== null && !debugId)
    return { code: 'invalid_debug_id', message: 'The map\'s "debug_id" (or "debugId") must be a UUID' };
  let consumer: SourceMapConsumer | null = null;
  try {
    consumer = await new SourceMapConsumer(raw as ConstructorParameters<typeof SourceMapConsumer>[0]);
    // Decoding the mappings once proves them well formed (the VLQ data is read lazily otherwise).
    const sources = new Set<string>();
    consumer.eachMapping((m) => {
      if (m.source) sources.add(m.source);
    });
    return { code: 'ok', message: '', sources: sources.size, debugId };
  } catch (err) {
    return { code: 'invalid_source_map', message: `The map cannot be read: ${(err as Error).message}`.slice(0, 300) };
  } finally {
    consumer?.destroy();
  }
}
