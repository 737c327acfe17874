import type { Knex } from 'knex';
import {
  isAdapterError,
  safeEqual,
  type ConnectorAdapter,
  type ConnectorSettings,
  type NormalizedEvent,
  type RawHeaders,
} from '../../../core/contracts/index.js';
import { originAllowed } from '../../../core/http/cors.js';
import { httpError, unauthenticated } from '../../../core/http/errors.js';
import { decodedBody, envelopeDsnKey, sentryKeyOf, withSentryRateLimits } from './sentry-protocol.js';
import type { IngestQueue } from './ingest-queue.js';
import type { EventSource } from './group-writer.js';
import { TtlMap } from '../../../core/data/ttl-map.js';

type ConnectorRow = {
  id: string;
  org_id: string;
  workspace_id: string;
  kind: string;
  status: string;
  token_hash: string | null;
  last_delivery_at: Date | null;
  config: Record<string, unknown>;
  /** Read for the Sentry protocol only (DSN lookups). */
  dsn_public_key?: string | null;
  widget_allowed_origins?: string[] | null;
} | null;

export interface IngestReceipt {
  accepted: number;
  duplicates: number;
  group_ids: string[];
}

/** One request of the Sentry protocol, as the route hands it over. */
export interface SentryRequest {
  projectId: string;
  format: 'envelope' | 'store';
  headers: RawHeaders;
  query: Record<string, unknown>;
  rawBody: Buffer;
  /** The browser's Origin header, when there is one. */
  origin: string | undefined;
}

/** The answer to an SDK: Sentry's `{id}`, and what was stored, found twice and skipped. */
export interface SentryReceipt extends IngestReceipt {
  id: string | null;
  skipped: Record<string, number>;
}

const CONNECTOR_COLUMNS = [
  'id',
  'org_id',
  'workspace_id',
  'kind',
  'status',
  'token_hash',
  'last_delivery_at',
  'config',
];

/**
 * Pushes into connectors (`POST /v1/ingest/{connectorId}` and provider webhooks): finds the
 * connector (cached for connectorCacheMs; changes in this process evict it at once), lets its
 * adapter verify the push over the raw body, normalises the events and hands them to the ingest
 * queue. An unknown connector and a wrong token answer the same 401.
 */
export class IngestService {
  private readonly cache: TtlMap<string, ConnectorRow>;

  constructor(
    private readonly db: Knex,
    private readonly queue: IngestQueue,
    private readonly adapters: () => readonly ConnectorAdapter[],
    cacheMs: number,
    /** Largest Sentry body once decompressed. */
    private readonly maxSentryBytes: number,
  ) {
    this.cache = new TtlMap(cacheMs);
  }

  /** Drops a changed connector from the cache (by id, and by its DSN project id). */
  forget(connectorId: string): void {
    this.cache.deleteWhere((row, key) => key === connectorId || row?.id === connectorId);
  }

  private async connector(id: string): Promise<ConnectorRow> {
    const hit = this.cache.get(id);
    if (hit !== undefined) return hit;
    const row = ((await this.db('connectors').where({ id }).select(CONNECTOR_COLUMNS).first()) ?? null) as ConnectorRow;
    return this.cache.set(id, row);
  }

  /** The endpoint connector of a DSN's project id, with its key and its workspace's allowed origins. */
  private async connectorOfDsn(projectId: string): Promise<ConnectorRow> {
    if (!/^\d{1,18}$/.test(projectId)) return null;
    const key = `dsn:${projectId}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const row = ((await this.db('connectors as c')
      .join('workspaces as w', 'w.id', 'c.workspace_id')
      .where({ 'c.dsn_project_id': projectId, 'c.kind': 'endpoint' })
      .select(CONNECTOR_COLUMNS.map((c) => `c.${c}`))
      .select('c.dsn_public_key', 'w.widget_allowed_origins')
      .first()) ?? null) as ConnectorRow;
    return this.cache.set(key, row);
  }

  private settingsOf(c: NonNullable<ConnectorRow>): ConnectorSettings {
    return {
      connectorId: c.id,
      workspaceId: c.workspace_id,
      config: c.config ?? {},
      secrets: {},
      lastDeliveryAt: c.last_delivery_at,
      tokenHash: c.token_hash,
    };
  }

  /** A push for one connector of the given kinds; answers the receipt once the events are committed. */
  async push(
    connectorId: string,
    headers: RawHeaders,
    rawBody: Buffer,
    kinds: readonly string[],
  ): Promise<IngestReceipt> {
    const c = await this.connector(connectorId);
    const adapter = c ? this.adapters().find((a) => a.kind === c.kind) : undefined;
    if (!c || !adapter?.verifyPush || !adapter.normalizePush || !kinds.includes(c.kind))
      throw unauthenticated('Unknown connector or wrong credentials');
    const settings = this.settingsOf(c);
    if (!adapter.verifyPush(headers, rawBody, settings))
      throw unauthenticated('Unknown connector or wrong credentials');
    const events = readBody(c, () => adapter.normalizePush!(jsonOf(rawBody), settings));
    return this.store(c, events);
  }

  /**
   * A request of the Sentry protocol (`POST /api/{project_id}/envelope/` or `/store/`): the DSN's key
   * authenticates it (401 for an unknown project or a wrong key, as for the generic endpoint), a
   * browser's Origin must be one of the workspace's allowed origins (403 origin_not_allowed), then the
   * endpoint adapter reads the body and its error events are stored like every other source's.
   */
  async pushSentry(req: SentryRequest, admitted: (origin: string) => void = () => undefined): Promise<SentryReceipt> {
    const c = await this.connectorOfDsn(req.projectId);
    const adapter = c ? this.adapters().find((a) => a.kind === c.kind) : undefined;
    const refused = () => unauthenticated('Unknown project or wrong DSN key');
    if (!c || !adapter?.normalizeSentry || !c.dsn_public_key) throw refused();
    // A key in the headers or the query is checked before the body is decoded; the envelope's own dsn after.
    const named = sentryKeyOf(req.headers, req.query);
    if (named !== null && !safeEqual(named, c.dsn_public_key)) throw refused();
    const body = decodedBody(req.headers, req.rawBody, this.maxSentryBytes);
    const key = named ?? (req.format === 'envelope' ? envelopeDsnKey(body) : null);
    if (key === null || !safeEqual(key, c.dsn_public_key)) throw refused();
    if (req.origin !== undefined) {
      admitOrigin(c, req.origin);
      admitted(req.origin); // from here on, refusals too carry the CORS headers (a 429 must be readable)
    }
    const pushed = readBody(c, () => adapter.normalizeSentry!(req.format, body, this.settingsOf(c)));
    const receipt = await this.store(c, pushed.events).catch((err: unknown) => {
      throw withSentryRateLimits(err);
    });
    return { id: pushed.eventId, ...receipt, skipped: pushed.skipped };
  }

  /** A browser's CORS preflight: 401 for an unknown project, 403 origin_not_allowed for an origin the workspace does not allow. */
  async sentryPreflight(projectId: string, origin: string | undefined): Promise<void> {
    const c = await this.connectorOfDsn(projectId);
    if (!c) throw unauthenticated('Unknown project or wrong DSN key');
    admitOrigin(c, origin);
  }

  private async store(c: NonNullable<ConnectorRow>, events: NormalizedEvent[]): Promise<IngestReceipt> {
    const source = c.kind as EventSource;
    const outcomes = events.length
      ? await this.queue.submit(
          events.map((event) => ({ orgId: c.org_id, workspaceId: c.workspace_id, connectorId: c.id, source, event })),
        )
      : [];
    return {
      accepted: outcomes.filter((o) => !o.duplicate).length,
      duplicates: outcomes.filter((o) => o.duplicate).length,
      group_ids: outcomes.map((o) => o.groupId),
    };
  }
}

/** 403 origin_not_allowed unless a browser's Origin is one of the connector's workspace's allowed origins. */
function admitOrigin(c: NonNullable<ConnectorRow>, origin: string | undefined): void {
  if (!originAllowed(origin, c.widget_allowed_origins ?? []))
    throw httpError(403, 'origin_not_allowed', "This origin is not one of the workspace's allowed origins", {
      origin: origin ?? null,
    });
}

/** What the adapter reads of a push: 409 connector_paused first; its PayloadError as 400 invalid_payload. */
function readBody<T>(c: NonNullable<ConnectorRow>, read: () => T): T {
  if (c.status === 'paused')
    throw httpError(409, 'connector_paused', 'This connector is paused; resume it to ingest events again');
  try {
    return read();
  } catch (err) {
    if (isAdapterError(err, 'invalid_payload')) throw httpError(400, 'invalid_payload', err.message);
    throw err;
  }
}

function jsonOf(rawBody: Buffer): unknown {
  try {
    return JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw httpError(400, 'invalid_payload', 'The body is not JSON');
  }
}
