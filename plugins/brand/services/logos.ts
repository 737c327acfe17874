import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { httpError } from '../../../core/http/errors.js';
import { BrandProfileRow } from '../models.js';
import type { BrandDeps } from './deps.js';
import { sniffImage, type LogoContentType } from './image.js';
import type { ProfileRecords } from './profile-records.js';
import type { SignedInActor } from '../../../core/contracts/index.js';

/** Column values of a profile without an uploaded logo. */
export const NO_UPLOAD = {
  logo_data: null,
  logo_content_type: null,
  logo_width: null,
  logo_height: null,
  logo_size_bytes: null,
  logo_sha256: null,
  logo_uploaded_at: null,
};

/** Strict base64 (standard or URL-safe alphabet, optional padding); anything else is a 400. */
function decodeBase64(data: string): Buffer {
  const clean = data.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
    throw httpError(400, 'invalid_request', 'data_base64 is not valid base64', {
      errors: [{ path: 'payload.data_base64', message: 'must be base64' }],
    });
  }
  return Buffer.from(clean.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
}

/** A profile's logo: uploaded bytes (sniffed and measured, at most maxLogoBytes and maxLogoPixels) or none. */
export class BrandLogos {
  constructor(
    private readonly d: BrandDeps,
    private readonly records: ProfileRecords,
  ) {}

  /** Stores an uploaded logo after reading its real type and size from the bytes. */
  async putLogo(
    actor: SignedInActor,
    id: string,
    input: { content_type: LogoContentType; data_base64: string },
  ): Promise<Record<string, unknown>> {
    const p = actor.principal;
    const bytes = decodeBase64(input.data_base64);
    if (bytes.length === 0) throw httpError(422, 'invalid_image', 'The logo is empty');
    if (bytes.length > this.d.options.maxLogoBytes) {
      throw httpError(
        413,
        'payload_too_large',
        `The logo is ${bytes.length} bytes; at most ${this.d.options.maxLogoBytes} bytes (512 KiB) are accepted`,
        { size_bytes: bytes.length, max_bytes: this.d.options.maxLogoBytes },
      );
    }
    const info = sniffImage(bytes);
    if (!info)
      throw httpError(422, 'unsupported_image', 'The logo must be a PNG, JPEG or WebP image', {
        accepted: ['image/png', 'image/jpeg', 'image/webp'],
      });
    if (info.contentType !== input.content_type) {
      throw httpError(422, 'content_type_mismatch', `The file is ${info.contentType}, not ${input.content_type}`, {
        declared: input.content_type,
        detected: info.contentType,
      });
    }
    const max = this.d.options.maxLogoPixels;
    if (info.width > max || info.height > max) {
      throw httpError(
        422,
        'image_too_large',
        `The logo is ${info.width}×${info.height} pixels; at most ${max}×${max}`,
        { width: info.width, height: info.height, max_pixels: max },
      );
    }
    return this.d.db.transaction(async (trx) => {
      const before = await this.records.lock(trx, p.orgId, id);
      const sha = createHash('sha256').update(bytes).digest('hex');
      const now = new Date();
      await BrandProfileRow.query(trx).forOrg(p.orgId).findById(id).patch({
        logo_source: 'upload',
        logo_url: null,
        logo_data: bytes,
        logo_content_type: info.contentType,
        logo_width: info.width,
        logo_height: info.height,
        logo_size_bytes: bytes.length,
        logo_sha256: sha,
        logo_uploaded_at: now,
        updated_at: now,
      });
      await this.logoChanged(trx, actor, 'brand.logo_uploaded', id, {
        before: before.logo_source ? { source: before.logo_source, sha256: before.logo_sha256 } : null,
        after: { source: 'upload', sha256: sha, content_type: info.contentType, size_bytes: bytes.length },
      });
      return this.records.out(trx, await this.records.find(trx, p.orgId, id));
    });
  }

  /** Removes the logo, uploaded or linked. */
  async deleteLogo(actor: SignedInActor, id: string): Promise<Record<string, unknown>> {
    const p = actor.principal;
    return this.d.db.transaction(async (trx) => {
      const before = await this.records.lock(trx, p.orgId, id);
      if (before.logo_source) {
        await BrandProfileRow.query(trx)
          .forOrg(p.orgId)
          .findById(id)
          .patch({ logo_source: null, logo_url: null, ...NO_UPLOAD, updated_at: new Date() });
        await this.logoChanged(trx, actor, 'brand.logo_deleted', id, {
          before: { source: before.logo_source, url: before.logo_url, sha256: before.logo_sha256 },
          after: null,
        });
      }
      return this.records.out(trx, await this.records.find(trx, p.orgId, id));
    });
  }

  /** A logo change is audited and announced as a profile update, in the change's transaction. */
  private async logoChanged(
    trx: Knex,
    actor: SignedInActor,
    action: 'brand.logo_uploaded' | 'brand.logo_deleted',
    id: string,
    logo: { before: unknown; after: unknown },
  ): Promise<void> {
    const orgId = actor.principal.orgId;
    await this.d.audit.record(trx, { actor, action, target: { type: 'brand_profile', id }, changes: { logo } });
    await this.d.outbox.add(trx, 'brand.profile_updated', { brand_profile_id: id, fields: ['logo'] }, { orgId });
  }

  /** The uploaded logo bytes (public asset route); null when the profile has none. */
  async logoBytes(id: string): Promise<{ data: Buffer; contentType: string; sha256: string } | null> {
    const row = (await this.d
      .db('brand_profiles')
      .select('logo_data', 'logo_content_type', 'logo_sha256')
      .where({ id, logo_source: 'upload' })
      .first()) as
      | { logo_data: Buffer | Uint8Array | null; logo_content_type: string | null; logo_sha256: string | null }
      | undefined;
    if (!row?.logo_data || !row.logo_content_type) return null;
    return { data: Buffer.from(row.logo_data), contentType: row.logo_content_type, sha256: row.logo_sha256 ?? '' };
  }
}
