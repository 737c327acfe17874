import type { Knex } from 'knex';
import { acrossOrgs, run } from '../../../core/data/statements.js';
import type { Workspace } from '../models/workspace.js';

/** A workspace as inbound routing reads it: what the inbox and the brand's white-label check use. */
export type RoutedWorkspace = Pick<
  Workspace,
  | 'id'
  | 'org_id'
  | 'name'
  | 'slug'
  | 'client_name'
  | 'locale'
  | 'brand_profile_id'
  | 'inbound_address'
  | 'mailbox_enabled'
  | 'archived_at'
  | 'sla_first_response_minutes'
  | 'sla_resolution_minutes'
>;

const BY_INBOUND_ADDRESS = acrossOrgs(
  'inbound mail routing by address',
  `
  select w.id, w.org_id, w.name, w.slug, w.client_name, w.locale, w.brand_profile_id, w.inbound_address, w.mailbox_enabled, w.archived_at,
    w.sla_first_response_minutes, w.sla_resolution_minutes
  from workspaces w where lower(w.inbound_address) = $1 and w.inbound_address is not null limit 1`,
);

/** The fields of a workspace the widget reads of the install behind a public key. */
export type WidgetInstall = Pick<
  Workspace,
  | 'id'
  | 'org_id'
  | 'name'
  | 'client_name'
  | 'locale'
  | 'brand_profile_id'
  | 'widget_public_key'
  | 'widget_allowed_origins'
  | 'widget_key_revoked_at'
  | 'archived_at'
>;

// Every widget request (events from every page of a host site) reads this: a prepared statement.
const BY_WIDGET_KEY = acrossOrgs(
  'widget public key lookup',
  `
  select w.id, w.org_id, w.name, w.client_name, w.locale, w.brand_profile_id, w.widget_public_key, w.widget_allowed_origins,
    w.widget_key_revoked_at, w.archived_at
  from workspaces w where w.widget_public_key = $1 and w.widget_key_revoked_at is null and w.archived_at is null limit 1`,
);

/** The workspace owning an inbound address (any organization): routing of inbound mail. */
export async function findByInboundAddress(db: Knex, address: string): Promise<RoutedWorkspace | undefined> {
  const [row] = await run<RoutedWorkspace>(db, BY_INBOUND_ADDRESS, [address.toLowerCase()]);
  return row;
}

/** The widget install of a public key, when the key is live (not revoked, workspace not archived). */
export async function findByWidgetKey(db: Knex, publicKey: string): Promise<WidgetInstall | undefined> {
  const [row] = await run<WidgetInstall>(db, BY_WIDGET_KEY, [publicKey]);
  return row;
}
