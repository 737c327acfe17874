import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

interface Key {
  id: string;
  key: Buffer;
}

/**
 * AES-256-GCM with a key ring. SECRET_KEYS is a comma-separated list of `id:base64key` (32 bytes);
 * the first key encrypts, every key decrypts, so a new key is rolled in by putting it first.
 * Ciphertext format: `v1.<keyId>.<iv>.<tag>.<data>` (base64url parts). The optional `context`
 * (e.g. `connector:<id>:api_key`) is bound as additional authenticated data, so a ciphertext
 * copied into another row fails to open.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;
  private readonly primary: Key;

  constructor(spec: string) {
    const parsed = parseKeys(spec);
    this.primary = parsed[0]!;
    this.keys = new Map(parsed.map((k) => [k.id, k.key]));
  }

  encrypt(plain: string, context = ''): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.primary.key, iv);
    cipher.setAAD(Buffer.from(context));
    const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    const tag = cipher.getAuthTag();
    return [
      'v1',
      this.primary.id,
      iv.toString('base64url'),
      tag.toString('base64url'),
      data.toString('base64url'),
    ].join('.');
  }

  decrypt(box: string, context = ''): string {
    const [version, keyId, iv, tag, data] = box.split('.');
    if (version !== 'v1' || !keyId || !iv || !tag || data === undefined)
      throw new SecretBoxError('not a sealed secret');
    const key = this.keys.get(keyId);
    if (!key) throw new SecretBoxError(`secret was sealed with key "${keyId}", which is not in SECRET_KEYS`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('secret does not open with its key and context');
    }
  }

  /** Whether a ciphertext was sealed with an older key (to re-seal during rotation). */
  needsRotation(box: string): boolean {
    return box.split('.')[1] !== this.primary.id;
  }
}

/** The last four characters of a secret, the only part ever shown again. */
export const last4 = (secret: string): string => secret.slice(-4);

function parseKeys(spec: string): Key[] {
  const keys = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((entry) => {
      const idx = entry.indexOf(':');
      if (idx <= 0) throw new SecretBoxError('SECRET_KEYS entries are id:base64key');
      const id = entry.slice(0, idx);
      const key = Buffer.from(entry.slice(idx + 1), 'base64');
      if (!/^[A-Za-z0-9_-]+$/.test(id))
        throw new SecretBoxError(`SECRET_KEYS key id "${id}" must be letters, digits, _ or -`);
      if (key.length !== 32)
        throw new SecretBoxError(`SECRET_KEYS key "${id}" must be 32 bytes (base64), got ${key.length}`);
      return { id, key };
    });
  if (keys.length === 0) throw new SecretBoxError('SECRET_KEYS is empty');
  return keys;
}

/**
 * The key ring spec: SECRET_KEYS when set, else a key generated once and kept in
 * `<dataDir>/secret-keys` (mode 0600) so the embedded default survives restarts.
 */
export function resolveSecretKeys(configured: string | null, dataDir: string): string {
  if (configured) return configured;
  if (dataDir === ':memory:') return `mem:${randomBytes(32).toString('base64')}`;
  const file = resolve(dataDir, 'secret-keys');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const spec = `k${Date.now().toString(36)}:${randomBytes(32).toString('base64')}`;
  writeFileSync(file, spec + '\n', { mode: 0o600 });
  return spec;
}
