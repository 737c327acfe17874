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

/** Checks that a text is a source map (revision 3, plain or indexed): code `ok` with its source count, else why not. */
export async function checkMap(text: string): Promise<{ code: string; message: string; sources?: number }> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { code: 'invalid_json', message: 'The map is not JSON' };
  }
  const m = raw as { version?: unknown; mappings?: unknown; sources?: unknown; sections?: unknown };
  if (!m || typeof m !== 'object' || Array.isArray(m))
    return { code: 'invalid_source_map', message: 'The map is not a JSON object' };
  if (m.version !== 3)
    return { code: 'unsupported_version', message: 'Only source map revision 3 is supported ("version": 3)' };
  const indexed = Array.isArray(m.sections);
  if (!indexed && (typeof m.mappings !== 'string' || !Array.isArray(m.sources))) {
    return { code: 'invalid_source_map', message: 'A source map needs "sources" (an array) and "mappings" (a string)' };
  }
  let consumer: SourceMapConsumer | null = null;
  try {
    consumer = await new SourceMapConsumer(raw as ConstructorParameters<typeof SourceMapConsumer>[0]);
    // Decoding the mappings once proves them well formed (the VLQ data is read lazily otherwise).
    const sources = new Set<string>();
    consumer.eachMapping((m) => {
      if (m.source) sources.add(m.source);
    });
    return { code: 'ok', message: '', sources: sources.size };
  } catch (err) {
    return { code: 'invalid_source_map', message: `The map cannot be read: ${(err as Error).message}`.slice(0, 300) };
  } finally {
    consumer?.destroy();
  }
}
