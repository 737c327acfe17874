/**
 * Languages by file extension and symbols by a simple pattern per language: declarations at
 * the start of a line (functions, classes, types, methods). Good enough for "where is X
 * defined" and for labelling search hits; not a parser.
 */
const EXT: Record<string, string> = {
  ts: 'typescript',
  tsx: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  js: 'javascript',
  jsx: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  py: 'python',
  rb: 'ruby',
  go: 'go',
  rs: 'rust',
  java: 'java',
  kt: 'kotlin',
  kts: 'kotlin',
  cs: 'csharp',
  php: 'php',
  swift: 'swift',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  hpp: 'cpp',
  scala: 'scala',
  ex: 'elixir',
  exs: 'elixir',
  vue: 'vue',
  svelte: 'svelte',
  md: 'markdown',
  mdx: 'markdown',
  json: 'json',
  yml: 'yaml',
  yaml: 'yaml',
  toml: 'toml',
  sql: 'sql',
  sh: 'shell',
  css: 'css',
  scss: 'css',
  html: 'html',
};

type Rule = [kind: string, pattern: RegExp];

const JS: Rule[] = [
  ['function', /^\s*(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*([A-Za-z_$][\w$]*)/],
  ['class', /^\s*(?:export\s+)?(?:default\s+)?(?:abstract\s+)?class\s+([A-Za-z_$][\w$]*)/],
  ['interface', /^\s*(?:export\s+)?interface\s+([A-Za-z_$][\w$]*)/],
  ['type', /^\s*(?:export\s+)?type\s+([A-Za-z_$][\w$]*)\s*(?:<[^=]*>)?\s*=/],
  ['enum', /^\s*(?:export\s+)?(?:const\s+)?enum\s+([A-Za-z_$][\w$]*)/],
  [
    'function',
    /^\s*(?:export\s+)?(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*(?::[^=]+)?=\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*(?::[^=]+)?=>|[A-Za-z_$][\w$]*\s*=>)/,
  ],
  [
    'method',
    /^\s+(?:public\s+|private\s+|protected\s+|static\s+|async\s+|override\s+|readonly\s+)*([A-Za-z_$][\w$]*)\s*\([^)]*\)\s*(?::\s*[^{;]+)?\{\s*$/,
  ],
];

const RULES: Record<string, Rule[]> = {
  typescript: JS,
  javascript: JS,
  vue: JS,
  svelte: JS,
  python: [
    ['function', /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/],
    ['class', /^\s*class\s+([A-Za-z_]\w*)/],
  ],
  ruby: [
    ['method', /^\s*def\s+(?:self\.)?([A-Za-z_]\w*[?!=]?)/],
    ['class', /^\s*class\s+([A-Z]\w*(?:::\w+)*)/],
    ['module', /^\s*module\s+([A-Z]\w*(?:::\w+)*)/],
  ],
  go: [
    ['function', /^func\s+(?:\([^)]*\)\s*)?([A-Za-z_]\w*)/],
    ['type', /^type\s+([A-Za-z_]\w*)/],
  ],
  rust: [
    ['function', /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+([A-Za-z_]\w*)/],
    ['type', /^\s*(?:pub(?:\([^)]*\))?\s+)?(?:struct|enum|trait|type)\s+([A-Za-z_]\w*)/],
  ],
  java: [
    [
      'class',
      /^\s*(?:public\s+|protected\s+|private\s+|abstract\s+|final\s+|static\s+)*(?:class|interface|enum|record)\s+([A-Za-z_]\w*)/,
    ],
    [
      'method',
      /^\s+(?:public|protected|private|static|final|synchronized|abstract|\s)+[\w<>[\],\s]+\s+([a-z_]\w*)\s*\([^;]*$/,
    ],
  ],
  kotlin: [
    ['function', /^\s*(?:\w+\s+)*fun\s+(?:<[^>]+>\s*)?(?:[\w.]+\.)?([A-Za-z_]\w*)/],
    ['class', /^\s*(?:\w+\s+)*(?:class|interface|object)\s+([A-Za-z_]\w*)/],
  ],
  csharp: [
    [
      'class',
      /^\s*(?:public\s+|internal\s+|private\s+|protected\s+|abstract\s+|sealed\s+|static\s+|partial\s+)*(?:class|interface|struct|enum|record)\s+([A-Za-z_]\w*)/,
    ],
    [
      'method',
      /^\s+(?:public|private|protected|internal|static|async|virtual|override|\s)+[\w<>[\],?\s]+\s+([A-Z]\w*)\s*\(/,
    ],
  ],
  php: [
    [
      'function',
      /^\s*(?:public\s+|private\s+|protected\s+|static\s+|abstract\s+|final\s+)*function\s+&?\s*([A-Za-z_]\w*)/,
    ],
    ['class', /^\s*(?:abstract\s+|final\s+)?(?:class|interface|trait|enum)\s+([A-Za-z_]\w*)/],
  ],
  swift: [
    ['function', /^\s*(?:\w+\s+)*func\s+([A-Za-z_]\w*)/],
    ['class', /^\s*(?:\w+\s+)*(?:class|struct|protocol|enum|extension)\s+([A-Za-z_]\w*)/],
  ],
  c: [['function', /^[A-Za-z_][\w\s*]*?\b([A-Za-z_]\w*)\s*\([^;]*$/]],
  cpp: [
    ['function', /^[A-Za-z_][\w\s*&:<>]*?\b([A-Za-z_]\w*)\s*\([^;]*$/],
    ['class', /^\s*(?:class|struct)\s+([A-Za-z_]\w*)/],
  ],
  scala: [
    ['function', /^\s*(?:\w+\s+)*def\s+([A-Za-z_]\w*)/],
    ['class', /^\s*(?:\w+\s+)*(?:class|object|trait)\s+([A-Za-z_]\w*)/],
  ],
  elixir: [
    ['function', /^\s*defp?\s+([a-z_]\w*[?!]?)/],
    ['module', /^\s*defmodule\s+([A-Z][\w.]*)/],
  ],
  markdown: [['heading', /^#{1,3}\s+(.+?)\s*#*\s*$/]],
};

const KEYWORDS = new Set(['if', 'for', 'while', 'switch', 'catch', 'return', 'function', 'else', 'new', 'constructor']);

export function languageOf(path: string): string | null {
  const name = path.split('/').pop() ?? '';
  if (name === 'Dockerfile') return 'dockerfile';
  if (name === 'Makefile') return 'make';
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  return EXT[ext] ?? null;
}

export interface FoundSymbol {
  name: string;
  kind: string;
  line: number;
}

/** Symbols of a file's text, in line order. */
export function findSymbols(language: string | null, text: string): FoundSymbol[] {
  const rules = language ? RULES[language] : undefined;
  if (!rules) return [];
  const out: FoundSymbol[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length > 400) continue;
    for (const [kind, re] of rules) {
      const m = re.exec(line);
      if (!m?.[1] || KEYWORDS.has(m[1])) continue;
      out.push({ name: m[1].slice(0, 200), kind, line: i + 1 });
      break;
    }
  }
  return out;
}

/** Identifiers split at camelCase and snake_case boundaries, so `handleLoginError` is found by "login". */
export function searchWords(text: string): string {
  const words = new Set<string>();
  for (const id of text.match(/[A-Za-z_][A-Za-z0-9_]{2,}/g) ?? []) {
    const parts = id
      .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
      .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
      .split(/[\s_]+/);
    if (parts.length > 1) for (const p of parts) if (p.length > 1) words.add(p.toLowerCase());
  }
  return [...words].join(' ');
}
