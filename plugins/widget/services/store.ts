import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { SecretBox } from '../../../core/security/secret-box.js';

/** A row of widget_settings; a workspace without one has the defaults (see DEFAULTS). */
export interface SettingsRow {
  workspace_id: string;
  org_id: string;
  capture_console: boolean;
  capture_network: boolean;
  capture_screenshot: boolean;
  max_entries: number;
  passive_enabled: boolean;
  identity_secret_sealed: string | null;
  key_rotated_at: Date | null;
  last_seen_at: Date | null;
  last_seen_origin: string | null;
  created_at: Date | null;
  updated_at: Date | null;
}

const DEFAULTS = {
  capture_console: true,
  capture_network: true,
  capture_screenshot: true,
  max_entries: 30,
  passive_enabled: false,
  identity_secret_sealed: null,
  key_rotated_at: null,
  last_seen_at: null,
  last_seen_origin: null,
  created_at: null,
  updated_at: null,
};

const secretContext = (workspaceId: string) => `widget:${workspaceId}:identity_secret`;

/** Settings rows of the widget (plain knex: the key is the workspace id; every query names its org). */
export class SettingsStore {
  constructor(private readonly secretBox: SecretBox) {}

  /** The stored settings, or the defaults. */
  async read(db: Knex, orgId: string, workspaceId: string): Promise<SettingsRow> {
    const row = (await db('widget_settings').where({ org_id: orgId, workspace_id: workspaceId }).first()) as
      SettingsRow | undefined;
    return row ?? { workspace_id: workspaceId, org_id: orgId, ...DEFAULTS };
  }

  /** The row (created with the defaults and an identity secret when missing), locked for update. */
  async ensure(trx: Knex, orgId: string, workspaceId: string): Promise<SettingsRow> {
    await trx('widget_settings')
      .insert({ workspace_id: workspaceId, org_id: orgId, identity_secret_sealed: this.seal(workspaceId, newSecret()) })
      .onConflict('workspace_id')
      .ignore();
    const row = (await trx('widget_settings')
      .where({ org_id: orgId, workspace_id: workspaceId })
      .forUpdate()
      .first()) as SettingsRow;
    if (!row.identity_secret_sealed) {
      row.identity_secret_sealed = this.seal(workspaceId, newSecret());
      await trx('widget_settings')
        .where({ org_id: orgId, workspace_id: workspaceId })
        .update({ identity_secret_sealed: row.identity_secret_sealed });
    }
    return row;
  }

  async patch(trx: Knex, orgId: string, workspaceId: string, patch: Partial<SettingsRow>): Promise<SettingsRow> {
    const [row] = (await trx('widget_settings')
      .where({ org_id: orgId, workspace_id: workspaceId })
      .update({ ...patch, updated_at: new Date() })
      .returning('*')) as SettingsRow[];
    return row;
  }

  seal(workspaceId: string, secret: string): string {
    return this.secretBox.encrypt(secret, secretContext(workspaceId));
  }

  /** The identify secret in clear, or null when none was made yet (the settings were never opened). */
  identitySecret(row: SettingsRow): string | null {
    return row.identity_secret_sealed
      ? this.secretBox.decrypt(row.identity_secret_sealed, secretContext(row.workspace_id))
      : null;
  }

  /**
   * Records that the widget was loaded from an allowed origin. Written at most once a minute per
   * install, so a busy site does not write on every page view.
   */
  async markSeen(db: Knex, orgId: string, workspaceId: string, origin: string): Promise<void> {
    await db.raw(
      `insert into widget_settings (workspace_id, org_id, last_seen_at, last_seen_origin) values (?, ?, now(), ?)
       on conflict (workspace_id) do update set last_seen_at = now(), last_seen_origin = excluded.last_seen_origin
       where widget_settings.last_seen_at is null or widget_settings.last_seen_at < now() - interval '1 minute' or widget_settings.last_seen_origin is distinct from excluded.last_seen_origin`,
      [workspaceId, orgId, origin],
    );
  }
}

/** 32 random bytes, base64url: the key of the identify HMAC. */
export const newSecret = (): string => `wis_${randomBytes(32).toString('base64url')}`;
