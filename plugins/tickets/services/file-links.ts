import { createHash, createHmac } from 'node:crypto';
import { safeEqual } from '../../../core/security/tokens.js';

/**
 * Short-lived signed download links: `/v1/files/{id}?exp=<unix seconds>&sig=<base64url HMAC>`.
 * The HMAC covers the file id and the expiry; the key is derived from the service's secret key
 * ring, so every process of a deployment signs and checks alike. Expiries are rounded up to the
 * next `roundS`, so one ticket page shows the same links for a while (cacheable answers).
 */
export class FileLinks {
  private readonly key: Buffer;

  constructor(
    secretKeysSpec: string,
    private readonly publicBaseUrl: string,
    readonly ttlS = 3600,
    private readonly roundS = 300,
  ) {
    this.key = createHash('sha256').update('patchwell:file-links:v1:').update(secretKeysSpec).digest();
  }

  private sign(fileId: string, exp: number): string {
    return createHmac('sha256', this.key).update(`${fileId}.${exp}`).digest('base64url');
  }

  url(fileId: string, now = Date.now()): string {
    const exp = Math.ceil((now / 1000 + this.ttlS) / this.roundS) * this.roundS;
    return `${this.publicBaseUrl.replace(/\/+$/, '')}/v1/files/${encodeURIComponent(fileId)}?exp=${exp}&sig=${this.sign(fileId, exp)}`;
  }

  /** `valid` (signature matches and not expired), `expired` or `invalid`. */
  check(fileId: string, exp: number, sig: string, now = Date.now()): 'valid' | 'expired' | 'invalid' {
    if (!safeEqual(sig, this.sign(fileId, exp))) return 'invalid';
    return exp * 1000 < now ? 'expired' : 'valid';
  }
}
