/**
 * The technical context of a widget report (Message.widget_context): bounded, masked, and
 * with the browser's name, version and OS read from its user agent when the script sent none.
 * The script masks before sending; this is the second line, for clients that do not.
 */

export interface ConsoleEntry {
  level: 'error' | 'warn' | 'unhandled_exception' | 'unhandled_rejection';
  message: string;
  stack?: string;
  timestamp: string;
}

export interface NetworkEntry {
  method: string;
  url: string;
  status: number;
  duration_ms: number;
  timestamp: string;
  error?: string;
}

// A type alias, not an interface: it is stored as the ticket's JSON widget context (a plain record).
export type BrowserInfo = {
  user_agent: string;
  name?: string;
  version?: string;
  os?: string;
  language?: string;
  viewport?: { width: number; height: number };
  screen?: { width: number; height: number };
};

export interface ReportContextInput {
  console?: ConsoleEntry[];
  network?: NetworkEntry[];
  browser?: Partial<BrowserInfo>;
  url?: string;
  release?: string;
}

export interface StoredContext {
  console: ConsoleEntry[];
  network: NetworkEntry[];
  browser?: BrowserInfo;
  url?: string;
  release?: string;
}

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const JWT = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\b/g;
const BEARER = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
const SECRET_PARAM =
  /([?&;,\s"']?(?:access_token|refresh_token|id_token|token|api_key|apikey|key|secret|password|passwd|pwd|auth|session|sig|signature|code)["']?\s*[=:]\s*["']?)[^&\s"',;]+/gi;
const LONG_TOKEN = /\b(?=[A-Za-z0-9_-]*\d)(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{32,}\b/g;
const CARD = /\b(?:\d[ -]?){13,19}\b/g;

/** Replaces email addresses, tokens, secrets in query strings and card numbers. */
export function mask(text: string): string {
  return text
    .replace(JWT, '[token]')
    .replace(BEARER, '$1 [token]')
    .replace(SECRET_PARAM, '$1[masked]')
    .replace(EMAIL, '[email]')
    .replace(LONG_TOKEN, '[token]')
    .replace(CARD, '[number]');
}

const clip = (s: string | undefined, n: number): string | undefined => (s === undefined ? undefined : s.slice(0, n));

/** Browser names by user agent pattern (version in the first group), most specific first. */
const BROWSERS: ReadonlyArray<readonly [RegExp, string]> = [
  [/Edg(?:e|A|iOS)?\/([\d.]+)/, 'Edge'],
  [/OPR\/([\d.]+)/, 'Opera'],
  [/Firefox\/([\d.]+)/, 'Firefox'],
  [/FxiOS\/([\d.]+)/, 'Firefox'],
  [/HeadlessChrome\/([\d.]+)/, 'Chrome Headless'],
  [/(?:Chrome|CriOS)\/([\d.]+)/, 'Chrome'],
  [/Version\/([\d.]+).*Safari\//, 'Safari'],
];

/** Name, version and OS of the common browsers, from a user agent. */
export function parseUserAgent(ua: string): { name?: string; version?: string; os?: string } {
  const out: { name?: string; version?: string; os?: string } = {};
  const pick = (re: RegExp, name: string): boolean => {
    const m = re.exec(ua);
    if (!m) return false;
    out.name = name;
    out.version = m[1];
    return true;
  };
  BROWSERS.some(([re, name]) => pick(re, name)); // the first match wins
  if (/Windows NT/.test(ua)) out.os = 'Windows';
  else if (/Android/.test(ua)) out.os = 'Android';
  else if (/iPhone|iPad|iPod/.test(ua)) out.os = 'iOS';
  else if (/Mac OS X|Macintosh/.test(ua)) out.os = 'macOS';
  else if (/CrOS/.test(ua)) out.os = 'ChromeOS';
  else if (/Linux/.test(ua)) out.os = 'Linux';
  return out;
}

/** The browser block: what the script sent, the user agent of the request otherwise; parsed fields filled in. */
export function browserOf(
  input: Partial<BrowserInfo> | undefined,
  requestUserAgent: string | undefined,
): BrowserInfo | undefined {
  const ua = (input?.user_agent || requestUserAgent || '').slice(0, 512);
  if (!ua && !input) return undefined;
  const parsed = parseUserAgent(ua);
  const out: BrowserInfo = { user_agent: ua };
  const name = input?.name || parsed.name;
  const version = input?.version || parsed.version;
  const os = input?.os || parsed.os;
  if (name) out.name = name.slice(0, 60);
  if (version) out.version = version.slice(0, 40);
  if (os) out.os = os.slice(0, 60);
  if (input?.language) out.language = input.language.slice(0, 35);
  if (input?.viewport) out.viewport = input.viewport;
  if (input?.screen) out.screen = input.screen;
  return out;
}

/** The stored widget_context: at most `maxEntries` of each list (the latest), every text masked. */
export function sanitizeContext(
  input: ReportContextInput | undefined,
  opts: { maxEntries: number; console: boolean; network: boolean; userAgent?: string },
): StoredContext {
  const consoleEntries = opts.console ? (input?.console ?? []).slice(-opts.maxEntries) : [];
  const networkEntries = opts.network ? (input?.network ?? []).slice(-opts.maxEntries) : [];
  const out: StoredContext = {
    console: consoleEntries.map((c) => {
      const e: ConsoleEntry = { level: c.level, message: mask(c.message.slice(0, 2000)), timestamp: c.timestamp };
      if (c.stack) e.stack = mask(c.stack.slice(0, 4000));
      return e;
    }),
    network: networkEntries.map((n) => {
      const e: NetworkEntry = {
        method: n.method.toUpperCase().slice(0, 10),
        url: mask(n.url.slice(0, 2000)),
        status: n.status,
        duration_ms: n.duration_ms,
        timestamp: n.timestamp,
      };
      if (n.error) e.error = mask(n.error.slice(0, 500));
      return e;
    }),
  };
  const browser = browserOf(input?.browser, opts.userAgent);
  if (browser) out.browser = browser;
  if (input?.url) out.url = mask(clip(input.url, 2000)!);
  if (input?.release) out.release = clip(input.release, 200)!;
  return out;
}
