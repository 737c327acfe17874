import { Model, QueryBuilder, type Page, type Pojo, type QueryBuilderType, type TransactionOrKnex } from 'objection';
import { newId } from './ids.js';

/**
 * Base of every model: a time-sortable prefixed id, created_at/updated_at kept by the model, and
 * Dates that leave as ISO 8601 strings.
 */
export class BaseModel extends Model {
  /** Prefix of new ids, e.g. `tkt`. */
  static idPrefix = 'id';
  /** Whether the table has an updated_at column. */
  static hasUpdatedAt = true;

  declare id: string;
  declare created_at: Date;

  override $beforeInsert(): void {
    const ctor = this.constructor as typeof BaseModel;
    if (!this.id) this.id = newId(ctor.idPrefix);
    const now = new Date();
    if (!this.created_at) this.created_at = now;
    if (ctor.hasUpdatedAt && !(this as Record<string, unknown>).updated_at) (this as Record<string, unknown>).updated_at = now;
  }

  override $beforeUpdate(): void {
    const ctor = this.constructor as typeof BaseModel;
    if (ctor.hasUpdatedAt) (this as Record<string, unknown>).updated_at = new Date();
  }

  override $formatJson(json: Pojo): Pojo {
    const out = super.$formatJson(json);
    for (const [k, v] of Object.entries(out)) if (v instanceof Date) out[k] = v.toISOString();
    return out;
  }
}

export class TenancyError extends Error {
  override name = 'TenancyError';
}

/**
 * Query builder of tenant tables. A read, update or delete must say whose rows it touches:
 * `.forOrg(orgId)` adds `org_id = ?`; `.acrossOrgs(reason)` is the explicit, greppable escape
 * hatch for system work (relays, purges, staff metrics). A query that says neither throws
 * TenancyError when it is built, so a forgotten org filter fails loudly in tests.
 */
export class TenantQueryBuilder<M extends Model, R = M[]> extends QueryBuilder<M, R> {
  declare ArrayQueryBuilderType: TenantQueryBuilder<M, M[]>;
  declare SingleQueryBuilderType: TenantQueryBuilder<M, M>;
  declare MaybeSingleQueryBuilderType: TenantQueryBuilder<M, M | undefined>;
  declare NumberQueryBuilderType: TenantQueryBuilder<M, number>;
  declare PageQueryBuilderType: TenantQueryBuilder<M, Page<M>>;

  forOrg(orgId: string): this {
    if (!orgId) throw new TenancyError('forOrg() needs an organization id');
    const table = this.tableRefFor(this.modelClass());
    return this.context({ tenantOrgId: orgId }).where(`${table}.org_id`, orgId);
  }

  acrossOrgs(reason: string): this {
    return this.context({ tenantBypass: reason });
  }
}

export class TenantModel extends BaseModel {
  declare QueryBuilderType: TenantQueryBuilder<this>;
  static override QueryBuilder = TenantQueryBuilder;

  declare org_id: string;

  static override query<M extends Model>(this: new () => M, trxOrKnex?: TransactionOrKnex): QueryBuilderType<M> {
    const qb = (Model.query as (this: unknown, t?: TransactionOrKnex) => QueryBuilder<Model>).call(this, trxOrKnex);
    const table = (this as unknown as typeof Model).tableName;
    return qb.onBuild((builder) => {
      if (builder.isInsert()) return;
      const ctx = builder.context() as { tenantOrgId?: string; tenantBypass?: string };
      if (!ctx.tenantOrgId && !ctx.tenantBypass) throw new TenancyError(`query on ${table} without forOrg() or acrossOrgs()`);
    });
  }

  override $beforeInsert(): void {
    super.$beforeInsert();
    if (!this.org_id) throw new TenancyError(`insert into ${(this.constructor as typeof Model).tableName} without org_id`);
  }
}

/** What a model says about its table; ids, timestamps and JSON columns are then handled by the base. */
export interface TableSpec {
  table: string;
  /** Prefix of new ids, e.g. `tkt`. */
  idPrefix: string;
  /** Columns stored as JSON (objection parses and formats them). */
  json?: string[];
  /** False for tables without an updated_at column. */
  updatedAt?: false;
}

function describeTable(model: typeof BaseModel, spec: TableSpec): void {
  model.tableName = spec.table;
  model.idPrefix = spec.idPrefix;
  if (spec.json) model.jsonAttributes = spec.json;
  if (spec.updatedAt === false) model.hasUpdatedAt = false;
}

/** Base of a global (not per-organization) model: `class X extends globalModel({ table, idPrefix })`. */
export function globalModel(spec: TableSpec) {
  return class extends BaseModel {
    static {
      describeTable(this, spec);
    }
  };
}

/** Base of a tenant model, whose queries must say whose rows they touch (see TenantModel). */
export function tenantModel(spec: TableSpec) {
  return class extends TenantModel {
    static {
      describeTable(this, spec);
    }
  };
}
