import { createHash } from 'node:crypto';
import Joi from 'joi';
import type { Knex } from 'knex';
import { codeHostOptionKeys, type CodeHostOptions } from '../../core/contracts/index.js';

export interface LocalUser {
  login: string;
  email?: string | null;
  password: string;
}

export interface LocalCodeHostOptions extends CodeHostOptions {
  /** Where bare repositories live; default `<dataDir>/git` (a temporary directory for `:memory:`). */
  root?: string;
  /** Base of the host's pages and links; default server.publicBaseUrl. */
  publicUrl?: string;
  /** Accounts of the local sign-in page (development only; empty: sign-in through the local host is off). */
  users: LocalUser[];
  /** Diffs longer than this are cut (CompareResult.truncated). */
  maxDiffBytes: number;
}

export interface SecretSealer {
  encrypt(plain: string, context?: string): string;
  decrypt(box: string, context?: string): string;
}

/** Names of accounts and repositories (`owner/name`). */
export const NAME = /^[A-Za-z0-9_.-]{1,100}$/;
export const hash = (s: string) => createHash('sha256').update(s).digest('hex');

export const localCodeHostSchema = Joi.object<LocalCodeHostOptions>({
  ...codeHostOptionKeys,
  root: Joi.string(),
  publicUrl: Joi.string().uri({ scheme: ['http', 'https'] }),
  users: Joi.array()
    .items(
      Joi.object({
        login: Joi.string().pattern(NAME).required(),
        email: Joi.string()
          .email({ tlds: { allow: false } })
          .allow(null),
        password: Joi.string().min(8).required(),
      }),
    )
    .default([]),
  maxDiffBytes: Joi.number()
    .integer()
    .min(1024)
    .default(1024 * 1024),
});

/** What the parts of the local host share (the host's dependencies, read when used). */
export interface LocalHostContext {
  /** The database; AdapterError not_configured without it. */
  readonly db: Knex;
  readonly options: LocalCodeHostOptions;
  /** Base URL of pages and links. */
  readonly publicUrl: string;
  /** The service's secret box, when present (CI secrets). */
  readonly sealer: SecretSealer | null;
}
