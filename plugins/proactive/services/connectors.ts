import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type { AuditEntryInput, AuditWriter } from '../../../core/audit/audit-writer.js';
import { diffFields } from '../../../core/audit/audit-writer.js';
import type {
  ConnectorAdapter,
  ConnectorKind,
  ConnectorSecretName,
  ConnectorSettings,
  ConnectorTestResult,
  SignedInActor,
} from '../../../core/contracts/index.js';
import { newId } from '../../../core/data/ids.js';
import { canOpenWorkspace, type Principal } from '../../../core/http/auth.js';
import { forbidden, httpError, notFound } from '../../../core/http/errors.js';
import type { SecretBox } from '../../../core/security/secret-box.js';
import { last4 } from '../../../core/security/secret-box.js';
import { newToken } from '../../../core/security/tokens.js';
import { Connector, type SealedSecret } from '../models.js';
import { cloudLogsPolicies, cloudLogsSetupOf } from './connector-cloud-logs.js';
import type { ProactiveOptions } from '../options.js';
import { firstHourOfDay } from './error-groups.js';
import { iso } from '../../../core/http/times.js';

export interface WorkspaceOpener {
  open(principal: Principal, id: string, trx?: Knex): Promise<{ id: string; org_id: string }>;
}

export interface ConnectorServiceDeps {
  db: Knex;
  secretBox: SecretBox;
  audit: AuditWriter;
  adapters: () => readonly ConnectorAdapter[];
  workspaces: () => WorkspaceOpener;
  publicBaseUrl: string;
  options: ProactiveOptions;
  /** Called after a change that must reach the ingest path at once (token, status, deletion). */
  onChanged: (connectorId: string) => void;
}

export interface CreateConnectorInput {
  workspace_id: string;
  kind: ConnectorKind;
  name: string;
  config: Record<string, unknown>;
  secrets: Record<string, string>;
}

const secretContext = (id: string, name: string) => `connector:${id}:${name}`;
const ADMIN = new Set(['owner', 'admin']);

/**
 * Connectors of a workspace: create with settings checked by the kind's adapter, secrets sealed
 * (only last4 answered), the endpoint token issued once and kept as a hash, pause/resume, token
 * rotation, tests with the stored settings. Every change is audited.
 */
export class ConnectorService {
  constructor(private readonly d: ConnectorServiceDeps) {}

  adapterFor(kind: string): ConnectorAdapter | null {
    return this.d.adapters().find((a) => a.kind === kind) ?? null;
  }

  private requireAdmin(a: SignedInActor): void {
    if (!ADMIN.has(a.principal.role)) throw forbidden('Only owners and admins manage connectors');
  }

  /** The audit entry of an administrative change to a connector, in the change's transaction. */
  private async audit(
    trx: Knex,
    a: SignedInActor,
    action: string,
    id: string,
    workspaceId: string,
    entry: Pick<AuditEntryInput, 'changes' | 'metadata'>,
  ): Promise<void> {
    await this.d.audit.record(trx, {
      actor: a,
      action,
      target: { type: 'connector', id },
      workspaceId,
      ...entry,
    });
  }

  /** A connector the caller may see: 404 for unknown ids and other organizations', 403 outside their workspaces. */
  async load(principal: Principal, id: string, trx?: Knex, forUpdate = false): Promise<Connector> {
    const q = Connector.query(trx ?? this.d.db)
      .forOrg(principal.orgId)
      .findById(id);
    if (forUpdate) q.forUpdate();
    const c = await q;
    if (!c) throw notFound('connector');
    if (!canOpenWorkspace(principal, c.workspace_id)) throw forbidden('You cannot open this workspace');
    return c;
  }

  async list(principal: Principal, workspaceId: string): Promise<Connector[]> {
    await this.d.workspaces().open(principal, workspaceId);
    return Connector.query(this.d.db)
      .forOrg(principal.orgId)
      .where({ workspace_id: workspaceId })
      .orderBy('created_at')
      .orderBy('id');
  }

  async create(a: SignedInActor, input: CreateConnectorInput): Promise<{ connector: Connector; token: string | null }> {
    this.requireAdmin(a);
    await this.d.workspaces().open(a.principal, input.workspace_id);
    const adapter = this.adapterFor(input.kind);
    if (!adapter) {
      throw httpError(422, 'connector_kind_unavailable', `No ${input.kind} connector is installed on this service`, {
        kind: input.kind,
      });
    }
    return this.d.db.transaction(async (trx) => {
      const expectedExternalId =
        input.kind === 'cloud_logs'
          ? (await cloudLogsSetupOf(trx, a.principal.orgId, input.workspace_id)).external_id
          : undefined;
      this.validate(adapter, input.config, input.secrets, { expectedExternalId });
      const id = newId(Connector.idPrefix);
      const token = adapter.kind === 'endpoint' ? newToken('pwi') : null;
      const now = new Date();
      const row = await Connector.query(trx)
        .insert({
          id,
          org_id: a.principal.orgId,
          workspace_id: input.workspace_id,
          kind: input.kind,
          name: input.name,
          status: 'active',
          config: input.config,
          secrets: this.seal(id, {}, input.secrets),
          token_hash: token?.hash ?? null,
          token_last4: token ? last4(token.token) : null,
          key_id: token ? keyId() : null,
          dsn_public_key: token ? dsnPublicKey() : null,
          next_poll_at: adapter.polls ? now : null,
          error_count: 0,
          created_at: now,
          updated_at: now,
        })
        .returning('*');
      await this.audit(trx, a, 'connector.created', id, input.workspace_id, {
        metadata: { kind: input.kind, name: input.name, secrets: Object.keys(input.secrets) },
      });
      return { connector: row, token: token?.token ?? null };
    });
  }

  async update(
    a: SignedInActor,
    id: string,
    patch: { name?: string; config?: Record<string, unknown>; secrets?: Record<string, string> },
  ): Promise<Connector> {
    this.requireAdmin(a);
    return this.d.db.transaction(async (trx) => {
      const before = await this.load(a.principal, id, trx, true);
      const adapter = this.adapterFor(before.kind);
      const config = patch.config ?? before.config;
      if (adapter && (patch.config || patch.secrets)) {
        const expectedExternalId =
          before.kind === 'cloud_logs'
            ? (await cloudLogsSetupOf(trx, a.principal.orgId, before.workspace_id)).external_id
            : undefined;
        this.validate(adapter, config, patch.secrets ?? {}, {
          expectedExternalId,
          storedSecrets: Object.keys(before.secrets ?? {}) as ConnectorSecretName[],
        });
      }
      const changes: Partial<Connector> = {};
      if (patch.name !== undefined) changes.name = patch.name;
      if (patch.config) changes.config = patch.config;
      if (patch.secrets) changes.secrets = this.seal(id, before.secrets ?? {}, patch.secrets);
      // New settings deserve a new try at once.
      if ((patch.config || patch.secrets) && adapter?.polls && before.status !== 'paused')
        Object.assign(changes, { next_poll_at: new Date(), status: 'active', error_count: 0 });
      const after = await Connector.query(trx).forOrg(a.principal.orgId).patchAndFetchById(id, changes);
      await this.audit(trx, a, 'connector.updated', id, before.workspace_id, {
        changes: diffFields({ name: before.name, config: before.config }, { name: after.name, config: after.config }),
        metadata: patch.secrets ? { secrets_replaced: Object.keys(patch.secrets) } : undefined,
      });
      return after;
    });
  }

  /** Deletes the connector and its secrets; its stored events stay until retention. */
  async remove(a: SignedInActor, id: string): Promise<void> {
    this.requireAdmin(a);
    await this.d.db.transaction(async (trx) => {
      const c = await this.load(a.principal, id, trx, true);
      await Connector.query(trx).forOrg(a.principal.orgId).deleteById(id);
      await this.audit(trx, a, 'connector.deleted', id, c.workspace_id, { metadata: { kind: c.kind, name: c.name } });
    });
    this.d.onChanged(id);
  }

  async setStatus(a: SignedInActor, id: string, action: 'pause' | 'resume'): Promise<Connector> {
    this.requireAdmin(a);
    const out = await this.d.db.transaction(async (trx) => {
      const before = await this.load(a.principal, id, trx, true);
      const polls = this.adapterFor(before.kind)?.polls ?? false;
      const patch: Partial<Connector> =
        action === 'pause'
          ? { status: 'paused' }
          : { status: 'active', next_poll_at: polls ? new Date() : null, error_count: 0 };
      if (action === 'resume' && before.status !== 'paused') return before;
      const after = await Connector.query(trx).forOrg(a.principal.orgId).patchAndFetchById(id, patch);
      await this.audit(trx, a, action === 'pause' ? 'connector.paused' : 'connector.resumed', id, before.workspace_id, {
        changes: diffFields({ status: before.status }, { status: after.status }),
      });
      return after;
    });
    this.d.onChanged(id);
    return out;
  }

  /** A new push token for the generic endpoint; the old one stops working. */
  async rotateToken(a: SignedInActor, id: string): Promise<{ connector: Connector; token: string }> {
    this.requireAdmin(a);
    const out = await this.d.db.transaction(async (trx) => {
      const before = await this.load(a.principal, id, trx, true);
      if (before.kind !== 'endpoint')
        throw httpError(409, 'not_endpoint_connector', 'Only generic endpoint connectors have a push token');
      const token = newToken('pwi');
      const after = await Connector.query(trx)
        .forOrg(a.principal.orgId)
        .patchAndFetchById(id, {
          token_hash: token.hash,
          token_last4: last4(token.token),
          key_id: keyId(),
          dsn_public_key: dsnPublicKey(),
        });
      await this.audit(trx, a, 'connector.token_rotated', id, before.workspace_id, {
        metadata: { key_id_before: before.key_id, key_id_after: after.key_id },
      });
      return { connector: after, token: token.token };
    });
    this.d.onChanged(id);
    return out;
  }

  /** Tests the stored settings; a provider answer moves the status (ok → active, refused → error), push-only answers leave it. */
  async test(a: SignedInActor, id: string): Promise<{ result: ConnectorTestResult; connector: Connector }> {
    this.requireAdmin(a);
    const c = await this.load(a.principal, id);
    const adapter = this.adapterFor(c.kind);
    let result: ConnectorTestResult;
    if (!adapter)
      result = {
        ok: false,
        code: 'invalid_settings',
        message: `No ${c.kind} connector is installed on this service`,
        details: {},
      };
    else {
      try {
        result = await adapter.test(this.settingsOf(c));
      } catch (err) {
        result = { ok: false, code: 'provider_error', message: (err as Error).message.slice(0, 300), details: {} };
      }
    }
    const now = new Date();
    const patch: Partial<Connector> = { last_activity_at: now };
    if (result.ok === true && c.status !== 'paused')
      Object.assign(patch, { status: 'active', last_error_code: null, last_error: null, error_count: 0 });
    if (result.ok === false && c.status !== 'paused')
      Object.assign(patch, { status: 'error', last_error_code: result.code, last_error: result.message });
    const connector = await this.d.db.transaction(async (trx) => {
      const after = await Connector.query(trx).forOrg(a.principal.orgId).patchAndFetchById(id, patch);
      await this.audit(trx, a, 'connector.tested', id, c.workspace_id, {
        metadata: { ok: result.ok, code: result.code },
      });
      return after;
    });
    return { result, connector };
  }

  /** The external id a workspace's cloud-logs role must require (made on first use), with the policies to paste. */
  async cloudLogsSetup(
    principal: Principal,
    workspaceId: string,
  ): Promise<{ external_id: string; principal_arn: string; trust_policy: string; permissions_policy: string }> {
    await this.d.workspaces().open(principal, workspaceId);
    const setup = await this.d.db.transaction((trx) => cloudLogsSetupOf(trx, principal.orgId, workspaceId));
    return cloudLogsPolicies(this.d.options.cloudLogs.principalArn, setup.external_id);
  }

  private validate(
    adapter: ConnectorAdapter,
    config: Record<string, unknown>,
    secrets: Record<string, string>,
    context: Parameters<ConnectorAdapter['validateSettings']>[2],
  ): void {
    const issues = adapter.validateSettings(config, secrets, context);
    if (issues.length)
      throw httpError(422, 'invalid_settings', 'The connector settings are not valid', { errors: issues });
  }

  private seal(
    id: string,
    current: Record<string, SealedSecret>,
    incoming: Record<string, string>,
  ): Record<string, SealedSecret> {
    const out = { ...current };
    for (const [name, value] of Object.entries(incoming))
      out[name] = { box: this.d.secretBox.encrypt(value, secretContext(id, name)), last4: last4(value) };
    return out;
  }

  /** The decrypted settings an adapter works with. */
  settingsOf(c: Connector): ConnectorSettings {
    const secrets: Partial<Record<ConnectorSecretName, string>> = {};
    for (const [name, sealed] of Object.entries(c.secrets ?? {}))
      secrets[name as ConnectorSecretName] = this.d.secretBox.decrypt(sealed.box, secretContext(c.id, name));
    return {
      connectorId: c.id,
      workspaceId: c.workspace_id,
      config: c.config ?? {},
      secrets,
      lastDeliveryAt: c.last_delivery_at ? new Date(c.last_delivery_at) : null,
      tokenHash: c.token_hash,
    };
  }

  /**
   * Events received per connector in the current hour and the 23 before it (connector_hours,
   * counted by each ingest batch), the window of a group's events_24h.
   */
  async events24h(orgId: string, ids: string[]): Promise<Map<string, number>> {
    if (!ids.length) return new Map();
    const rows: Array<{ connector_id: string; n: number | string }> = await this.d
      .db('connector_hours')
      .where({ org_id: orgId })
      .whereIn('connector_id', ids)
      .where('hour', '>=', firstHourOfDay(Date.now()))
      .groupBy('connector_id')
      .select('connector_id')
      .sum({ n: 'count' });
    return new Map(rows.map((r) => [r.connector_id, Number(r.n)]));
  }

  serialize(c: Connector, events24h: number): Record<string, unknown> {
    const base = this.d.publicBaseUrl;
    const adapter = this.adapterFor(c.kind);
    const secrets = Object.entries(c.secrets ?? {}).map(([name, s]) => ({ name, last4: s.last4 }));
    if (c.kind === 'endpoint' && c.token_last4) secrets.push({ name: 'token', last4: c.token_last4 });
    return {
      id: c.id,
      workspace_id: c.workspace_id,
      kind: c.kind,
      name: c.name,
      status: c.status,
      config: c.config ?? {},
      secrets,
      webhook_url: c.kind === 'error_tracker' ? `${base}/v1/webhooks/error-tracker/${c.id}` : null,
      ingest_url: c.kind === 'endpoint' ? `${base}/v1/ingest/${c.id}` : null,
      dsn: c.kind === 'endpoint' && c.dsn_public_key ? dsnOf(base, c.dsn_public_key, c.dsn_project_id) : null,
      white_label: false,
      white_label_pending: false,
      key_id: c.key_id,
      polls: adapter?.polls ?? false,
      last_activity_at: iso(
        c.last_delivery_at && (!c.last_activity_at || c.last_delivery_at > c.last_activity_at)
          ? c.last_delivery_at
          : c.last_activity_at,
      ),
      next_poll_at: adapter?.polls && c.status !== 'paused' ? iso(c.next_poll_at) : null,
      last_error_code: c.last_error_code,
      last_error: c.last_error,
      events_24h: events24h,
      created_at: iso(c.created_at),
      updated_at: iso(c.updated_at),
    };
  }
}

/** A short public id of the current push token (changes on rotation), e.g. `key_9f2c41ab`. */
function keyId(): string {
  return `key_${randomBytes(4).toString('hex')}`;
}

/** A DSN's public key: 32 hex characters, as Sentry's (the SDKs' DSN parser takes word characters only). */
function dsnPublicKey(): string {
  return randomBytes(16).toString('hex');
}

/** `https://<key>@<host>[/<base path>]/<project id>`: the form every official Sentry SDK parses. */
export function dsnOf(publicBaseUrl: string, key: string, projectId: number | string): string {
  const u = new URL(publicBaseUrl);
  return `${u.protocol}//${key}@${u.host}${u.pathname.replace(/\/+$/, '')}/${projectId}`;
}
