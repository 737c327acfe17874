import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, opts: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) =>
    scryptCb(password, salt, keylen, opts, (err, key) => (err ? reject(err) : resolve(key))),
  );

/**
 * scrypt password hashing at OWASP parameters (N=2^17, r=8, p=1 by default; `cost` is log2 N).
 * Hash format: `scrypt$<logN>$<r>$<p>$<salt b64>$<hash b64>`, so the cost can rise without
 * invalidating old hashes (`needsRehash`).
 */
export class PasswordHasher {
  constructor(
    private readonly cost = 17,
    private readonly r = 8,
    private readonly p = 1,
  ) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await scrypt(password, salt, 32, this.options(this.cost, this.r, this.p));
    return ['scrypt', this.cost, this.r, this.p, salt.toString('base64'), key.toString('base64')].join('$');
  }

  async verify(password: string, stored: string | null | undefined): Promise<boolean> {
    const parts = (stored ?? '').split('$');
    if (parts.length !== 6 || parts[0] !== 'scrypt') {
      // Spend the same time on a missing or foreign hash, so timing does not reveal accounts.
      await this.hash(password);
      return false;
    }
    const [, logN, r, p, salt, hash] = parts as [string, string, string, string, string, string];
    const expected = Buffer.from(hash, 'base64');
    const key = await scrypt(
      password,
      Buffer.from(salt, 'base64'),
      expected.length,
      this.options(Number(logN), Number(r), Number(p)),
    );
    return key.length === expected.length && timingSafeEqual(key, expected);
  }

  needsRehash(stored: string): boolean {
    return stored.split('$')[1] !== String(this.cost);
  }

  private options(logN: number, r: number, p: number): ScryptOptions {
    const N = 2 ** logN;
    return { N, r, p, maxmem: 128 * N * r * p * 2 };
  }
}
