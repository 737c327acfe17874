/**
 * Masks secrets and personal data in agent output before it is stored as a job event: email
 * addresses, bearer and basic credentials, URL credentials, well-known token shapes, assignments
 * of secret-looking names, and the job's own secrets given by value.
 */
const PATTERNS: Array<[RegExp, string | ((m: string, ...g: string[]) => string)]> = [
  [/(https?:\/\/)[^\s:/@]+:[^\s@/]+@/gi, '$1***:***@'],
  [/\b(Bearer|Basic|token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 ***'],
  [
    /\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|sk-[A-Za-z0-9_-]{16,}|xox[abpr]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|pw_[a-z]+_[A-Za-z0-9_-]{20,})\b/g,
    '***',
  ],
  [
    /\b([A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_KEY|PRIVATE_KEY)[A-Z0-9_]*)\s*[=:]\s*("[^"]*"|'[^']*'|\S+)/gi,
    '$1=***',
  ],
  [/-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g, '***'],
  [/\b([A-Za-z0-9._%+-])[A-Za-z0-9._%+-]*@([A-Za-z0-9])[A-Za-z0-9.-]*\.([A-Za-z]{2,})\b/g, '$1***@$2***.$3'],
];

export function mask(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join('***');
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep as string);
  return out;
}

/** Masks every string inside a JSON value. */
export function maskDeep(value: unknown, secrets: readonly string[] = []): unknown {
  if (typeof value === 'string') return mask(value, secrets);
  if (Array.isArray(value)) return value.map((v) => maskDeep(v, secrets));
  if (value && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskDeep(v, secrets)]));
  return value;
}
