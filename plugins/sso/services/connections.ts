import type { Knex } from 'knex';
import { diffFields } from '../../../core/audit/audit-writer.js';
import {
  isAdapterError,
  type IdentityProvider,
  type SignedInActor,
  type SsoConnectionSettings,
  type SsoProtocol,
} from '../../../core/contracts/index.js';
import { conflict, forbidden, httpError, notFound } from '../../../core/http/errors.js';
import type { Principal } from '../../../core/http/auth.js';
import { readCertificate, toPem } from '../../../core/security/x509.js';
import { SsoConnectionModel, SsoIdentityModel } from '../models.js';
import { base, hasPlanFeature, loadOrg, type OrgRow, type SsoDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';
import type { DomainService } from './domains.js';

export interface CreateConnectionInput {
  protocol: SsoProtocol;
  name: string;
  domains: string[];
  default_role: 'admin' | 'reviewer';
  jit_enabled: boolean;
  issuer?: string;
  client_id?: string;
  client_secret?: string;
  metadata_xml?: string;
  entity_id?: string;
  sso_url?: string;
  certificate?: string;
}

export type UpdateConnectionInput = Partial<Omit<CreateConnectionInput, 'protocol'>>;

const OIDC_FIELDS = ['issuer', 'client_id', 'client_secret'] as const;
const SAML_FIELDS = ['metadata_xml', 'entity_id', 'sso_url', 'certificate'] as const;
/** Fields only owners change (spec: provider settings and domains). */
const OWNER_FIELDS = [...OIDC_FIELDS, ...SAML_FIELDS, 'domains'] as const;
const AUDITED = [
  'name',
  'domains',
  'default_role',
  'jit_enabled',
  'issuer',
  'client_id',
  'client_secret_sealed',
  'idp_sso_url',
  'idp_cert',
  'idp_metadata_xml',
];

const fieldError = (path: string, message: string) =>
  httpError(400, 'invalid_request', message, { errors: [{ path: `payload.${path}`, message }] });

export const secretContext = (connectionId: string) => `sso:${connectionId}:client_secret`;

/** Single sign-on connections: CRUD, their settings for the adapters, tests and unlinking. */
export class ConnectionService {
  constructor(private readonly d: SsoDeps & { ssoDomains: DomainService }) {}

  provider(protocol: SsoProtocol): IdentityProvider {
    const p = this.d.identityProviders.find((x) => x.protocol === protocol);
    if (!p)
      throw httpError(
        503,
        'protocol_unavailable',
        `No ${protocol} adapter is configured (config key adapters.identity)`,
      );
    return p;
  }

  serviceProvider(id: string) {
    const b = base(this.d.config);
    const metadataUrl = `${b}/v1/auth/sso/saml/${id}/metadata`;
    return {
      redirectUri: `${b}/v1/auth/sso/oidc/callback`,
      entityId: metadataUrl,
      acsUrl: `${b}/v1/auth/sso/saml/${id}/acs`,
      metadataUrl,
      loginUrl: `${b}/v1/auth/sso/login?connection=${encodeURIComponent(id)}`,
    };
  }

  /** The connection as the adapters take it, with the client secret opened. */
  settings(c: SsoConnectionModel): SsoConnectionSettings {
    const sp = this.serviceProvider(c.id);
    return {
      id: c.id,
      protocol: c.protocol,
      issuer: c.issuer,
      clientId: c.client_id,
      clientSecret: c.client_secret_sealed
        ? this.d.secretBox.decrypt(c.client_secret_sealed, secretContext(c.id))
        : null,
      idpSsoUrl: c.idp_sso_url,
      idpCert: c.idp_cert,
      idpMetadataXml: c.idp_metadata_xml,
      serviceProvider: {
        redirectUri: sp.redirectUri,
        entityId: sp.entityId,
        acsUrl: sp.acsUrl,
        metadataUrl: sp.metadataUrl,
      },
    };
  }

  async find(db: Knex, orgId: string, id: string): Promise<SsoConnectionModel> {
    const c = await SsoConnectionModel.query(db).forOrg(orgId).findById(id);
    if (!c) throw notFound('connection');
    return c;
  }

  /** A connection by id alone (public sign-in routes), or 404. */
  async findAnyOrg(db: Knex, id: string): Promise<SsoConnectionModel> {
    const c = await SsoConnectionModel.query(db).acrossOrgs('public sign-in names the connection').findById(id);
    if (!c) throw notFound('connection');
    return c;
  }

  async listModels(db: Knex, orgId: string): Promise<SsoConnectionModel[]> {
    return SsoConnectionModel.query(db)
      .forOrg(orgId)
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
  }

  async json(db: Knex, org: OrgRow, conns: SsoConnectionModel[]) {
    const counts = new Map<string, number>();
    if (conns.length) {
      const rows: Array<{ connection_id: string; n: string | number }> = await db('sso_identities')
        .select('connection_id')
        .count('* as n')
        .where('org_id', org.id)
        .whereIn(
          'connection_id',
          conns.map((c) => c.id),
        )
        .groupBy('connection_id');
      for (const r of rows) counts.set(r.connection_id, Number(r.n));
    }
    return conns.map((c) => this.serialize(c, org.sso_enforced, counts.get(c.id) ?? 0));
  }

  async one(db: Knex, orgId: string, c: SsoConnectionModel) {
    const [json] = await this.json(db, await loadOrg(db, orgId), [c]);
    return json;
  }

  serialize(c: SsoConnectionModel, enforced: boolean, linked: number) {
    const sp = this.serviceProvider(c.id);
    return {
      id: c.id,
      org_id: c.org_id,
      protocol: c.protocol,
      issuer: c.issuer ?? null,
      client_id: c.client_id ?? null,
      has_client_secret: Boolean(c.client_secret_sealed),
      idp_sso_url: c.idp_sso_url ?? null,
      idp_cert: c.idp_cert ?? null,
      has_idp_metadata: Boolean(c.idp_metadata_xml),
      domains: c.domains ?? [],
      enforced,
      default_role: c.default_role,
      created_at: iso(c.created_at),
      updated_at: iso(c.updated_at),
      name: c.name,
      jit_enabled: c.jit_enabled,
      last_login_at: iso(c.last_login_at),
      service_provider: {
        redirect_uri: sp.redirectUri,
        entity_id: sp.entityId,
        acs_url: sp.acsUrl,
        metadata_url: sp.metadataUrl,
        login_url: sp.loginUrl,
      },
      certificate_expires_at: iso(c.certificate_expires_at),
      linked_accounts: linked,
    };
  }

  private assertPlan(org: OrgRow): void {
    if (!hasPlanFeature(this.d, org, 'sso')) {
      throw httpError(402, 'feature_not_in_plan', 'Single sign-on is not part of your plan', {
        feature: 'sso',
        plan: org.plan,
      });
    }
  }

  /** SAML settings from the payload: metadata first, explicit fields over it. */
  private samlSettings(input: UpdateConnectionInput): Partial<SsoConnectionModel> {
    const out: Partial<SsoConnectionModel> = {};
    if (input.metadata_xml !== undefined) {
      const saml = this.provider('saml');
      try {
        const m = saml.importMetadata!(input.metadata_xml);
        Object.assign(out, {
          idp_metadata_xml: input.metadata_xml,
          issuer: m.entityId,
          idp_sso_url: m.ssoUrl,
          idp_cert: m.certificate,
        });
      } catch (err) {
        if (isAdapterError(err, 'invalid_metadata')) throw fieldError('metadata_xml', err.message);
        throw err;
      }
    }
    if (input.entity_id !== undefined) out.issuer = input.entity_id;
    if (input.sso_url !== undefined) out.idp_sso_url = input.sso_url;
    if (input.certificate !== undefined) {
      if (!readCertificate(input.certificate))
        throw fieldError('certificate', 'is not a readable X.509 certificate (PEM or base64 DER)');
      out.idp_cert = toPem(input.certificate);
    }
    if (out.idp_cert !== undefined) out.certificate_expires_at = readCertificate(out.idp_cert)?.validTo ?? null;
    return out;
  }

  async create(principal: Principal, input: CreateConnectionInput, actor: SignedInActor) {
    const org = await loadOrg(this.d.db, principal.orgId);
    this.assertPlan(org);
    return this.d.db.transaction(async (trx) => {
      const row: Partial<SsoConnectionModel> = {
        org_id: principal.orgId,
        protocol: input.protocol,
        name: input.name,
        domains: input.domains,
        default_role: input.default_role,
        jit_enabled: input.jit_enabled,
      };
      if (input.protocol === 'oidc') Object.assign(row, { issuer: input.issuer, client_id: input.client_id });
      else Object.assign(row, this.samlSettings(input));
      const conn = await SsoConnectionModel.query(trx).insert(row);
      if (input.protocol === 'oidc' && input.client_secret) {
        conn.client_secret_sealed = this.d.secretBox.encrypt(input.client_secret, secretContext(conn.id));
        await SsoConnectionModel.query(trx)
          .forOrg(principal.orgId)
          .findById(conn.id)
          .patch({ client_secret_sealed: conn.client_secret_sealed });
      }
      await this.d.ssoDomains.ensureClaimed(trx, principal.orgId, input.domains, actor);
      await this.d.audit.record(trx, {
        actor,
        action: 'sso.connection_created',
        target: { type: 'sso_connection', id: conn.id },
        metadata: {
          protocol: conn.protocol,
          name: conn.name,
          domains: conn.domains,
          issuer: conn.issuer ?? null,
          client_id: conn.client_id ?? null,
          has_client_secret: Boolean(conn.client_secret_sealed),
        },
      });
      return this.one(trx, principal.orgId, conn);
    });
  }

  async update(principal: Principal, id: string, input: UpdateConnectionInput, actor: SignedInActor) {
    const ownerFields = OWNER_FIELDS.filter((f) => input[f] !== undefined);
    return this.d.db.transaction(async (trx) => {
      const conn = await this.find(trx, principal.orgId, id);
      if (ownerFields.length && principal.role !== 'owner')
        throw forbidden(`Only owners change ${ownerFields.join(', ')}`);
      const wrong = (conn.protocol === 'oidc' ? SAML_FIELDS : OIDC_FIELDS).find((f) => input[f] !== undefined);
      if (wrong) throw fieldError(wrong, `does not apply to ${conn.protocol} connections`);

      const patch: Partial<SsoConnectionModel> = {};
      for (const k of ['name', 'domains', 'default_role', 'jit_enabled'] as const)
        if (input[k] !== undefined) (patch as Record<string, unknown>)[k] = input[k];
      if (conn.protocol === 'oidc') {
        if (input.issuer !== undefined) patch.issuer = input.issuer;
        if (input.client_id !== undefined) patch.client_id = input.client_id;
        if (input.client_secret !== undefined)
          patch.client_secret_sealed = this.d.secretBox.encrypt(input.client_secret, secretContext(conn.id));
      } else {
        Object.assign(patch, this.samlSettings(input));
      }
      const before = { ...conn } as Record<string, unknown>;
      await SsoConnectionModel.query(trx).forOrg(principal.orgId).findById(id).patch(patch);
      const after = await this.find(trx, principal.orgId, id);
      if (input.domains) await this.d.ssoDomains.ensureClaimed(trx, principal.orgId, input.domains, actor);
      const changes = diffFields(before, after as unknown as Record<string, unknown>, AUDITED);
      if (input.client_secret !== undefined)
        changes.client_secret = { before: before.client_secret_sealed ? '[redacted]' : null, after: '[redacted]' };
      delete changes.client_secret_sealed;
      if (Object.keys(changes).length) {
        await this.d.audit.record(trx, {
          actor,
          action: 'sso.connection_updated',
          target: { type: 'sso_connection', id },
          changes,
        });
      }
      return this.one(trx, principal.orgId, after);
    });
  }

  async remove(principal: Principal, id: string, actor: SignedInActor): Promise<void> {
    await this.d.db.transaction(async (trx) => {
      const conn = await this.find(trx, principal.orgId, id);
      const org = await loadOrg(trx, principal.orgId);
      if (org.sso_enforced) {
        const others = await SsoConnectionModel.query(trx).forOrg(principal.orgId).whereNot('id', id).resultSize();
        if (others === 0)
          throw conflict(
            'sso_enforced',
            'Single sign-on is required for this organization; turn the requirement off before removing its last connection',
          );
      }
      await SsoConnectionModel.query(trx).forOrg(principal.orgId).deleteById(id);
      await this.d.audit.record(trx, {
        actor,
        action: 'sso.connection_deleted',
        target: { type: 'sso_connection', id },
        metadata: { protocol: conn.protocol, name: conn.name, secret_deleted: Boolean(conn.client_secret_sealed) },
      });
    });
  }

  async test(principal: Principal, id: string) {
    const conn = await this.find(this.d.db, principal.orgId, id);
    const result = await this.provider(conn.protocol).testConnection(this.settings(conn));
    return {
      ok: result.ok,
      protocol: conn.protocol,
      details: result.details,
      error: result.ok ? null : (result.error ?? 'discovery_failed'),
    };
  }

  /** Forgets the link of one person to this connection; their next sign-in links again. */
  async unlink(principal: Principal, id: string, email: string, actor: SignedInActor) {
    return this.d.db.transaction(async (trx) => {
      const conn = await this.find(trx, principal.orgId, id);
      const userIds = (
        (await trx('users').select('id').where({ org_id: principal.orgId, email })) as Array<{ id: string }>
      ).map((u) => u.id);
      const links = await SsoIdentityModel.query(trx)
        .forOrg(principal.orgId)
        .where('connection_id', id)
        .where((w) => {
          w.where('email', email);
          if (userIds.length) w.orWhereIn('user_id', userIds);
        });
      const removed = links.length;
      if (removed)
        await SsoIdentityModel.query(trx)
          .forOrg(principal.orgId)
          .whereIn(
            'id',
            links.map((l) => l.id),
          )
          .delete();
      if (removed === 0) throw notFound('linked account');
      await this.d.audit.record(trx, {
        actor,
        action: 'sso.account_unlinked',
        target: { type: 'sso_connection', id },
        metadata: { email, links_removed: removed },
      });
      return this.one(trx, principal.orgId, conn);
    });
  }
}
