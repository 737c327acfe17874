import type { Knex } from 'knex';
import { isAdapterError, type ConnectorAdapter, type RawHeaders } from '../../../core/contracts/index.js';
import { httpError, unauthenticated } from '../../../core/http/errors.js';
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
} | null;

export interface IngestReceipt {
  accepted: number;
  duplicates: number;
  group_ids: string[];
}

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
  ) {
    this.cache = new TtlMap(cacheMs);
  }

  forget(connectorId: string): void {
    this.cache.delete(connectorId);
  }

  private async connector(id: string): Promise<ConnectorRow> {
    const hit = this.cache.get(id);
    if (hit !== undefined) return hit;
    const row = ((await this.db('connectors')
      .where({ id })
      .select('id', 'org_id', 'workspace_id', 'kind', 'status', 'token_hash', 'last_delivery_at', 'config')
      .first()) ?? null) as ConnectorRow;
    return this.cache.set(id, row);
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
    const settings = {
      connectorId: c.id,
      workspaceId: c.workspace_id,
      config: c.config ?? {},
      secrets: {},
      lastDeliveryAt: c.last_delivery_at,
      tokenHash: c.token_hash,
    };
    if (!adapter.verifyPush(headers, rawBody, settings))
      throw unauthenticated('Unknown connector or wrong credentials');
    if (c.status === 'paused')
      throw httpError(409, 'connector_paused', 'This connector is paused; resume it to ingest events again');
    let body: unknown;
    try {
      body = JSON.parse(rawBody.toString('utf8'));
    } catch {
      throw httpError(400, 'invalid_payload', 'The body is not JSON');
    }
    let events;
    try {
      events = adapter.normalizePush(body, settings);
    } catch (err) {
      if (isAdapterError(err, 'invalid_payload')) throw httpError(400, 'invalid_payload', err.message);
      throw err;
    }
    const source = c.kind as EventSource;
    const outcomes = await this.queue.submit(
      events.map((event) => ({ orgId: c.org_id, workspaceId: c.workspace_id, connectorId: c.id, source, event })),
    );
    return {
      accepted: outcomes.filter((o) => !o.duplicate).length,
      duplicates: outcomes.filter((o) => o.duplicate).length,
      group_ids: outcomes.map((o) => o.groupId),
    };
  }
}
