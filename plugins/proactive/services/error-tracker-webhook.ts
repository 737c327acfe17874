import type { Knex } from 'knex';
import { headerValue, isAdapterError, type ConnectorAdapter, type RawHeaders } from '../../../core/contracts/index.js';
import { httpError, unauthenticated } from '../../../core/http/errors.js';
import { Connector } from '../models.js';
import type { ConnectorService } from './connectors.js';
import type { IngestQueue } from './ingest-queue.js';
import type { IngestReceipt } from './ingest.js';

/** Resources of the tracker's integration webhook that never carry error events. */
const NO_EVENTS = new Set(['installation', 'metric_alert', 'comment', 'seer']);

/**
 * Deliveries of a Sentry-compatible tracker's integration webhook
 * (`POST /v1/webhooks/error-tracker/{connectorId}`, section "error-tracker webhook"). The
 * connector's decrypted client secret checks `Sentry-Hook-Signature` over the exact bytes of the
 * body before anything is parsed; the events go through the same ingest queue as the generic
 * endpoint (committed and grouped before the answer). Unknown connector, another kind and a bad
 * signature answer the same 401.
 */
export class ErrorTrackerWebhook {
  constructor(
    private readonly d: {
      db: Knex;
      queue: IngestQueue;
      connectors: () => ConnectorService;
      adapters: () => readonly ConnectorAdapter[];
    },
  ) {}

  async deliver(connectorId: string, headers: RawHeaders, rawBody: Buffer): Promise<IngestReceipt> {
    const c = await Connector.query(this.d.db)
      .acrossOrgs('webhook delivery: the connector id in the path names the tenant')
      .findById(connectorId);
    const adapter = c?.kind === 'error_tracker' ? this.d.adapters().find((a) => a.kind === 'error_tracker') : undefined;
    if (!c || !adapter?.verifyPush || !adapter.normalizePush)
      throw unauthenticated('Unknown connector or wrong signature');
    const settings = this.d.connectors().settingsOf(c);
    if (!adapter.verifyPush(headers, rawBody, settings)) throw unauthenticated('Unknown connector or wrong signature');
    if (c.status === 'paused')
      throw httpError(409, 'connector_paused', 'This connector is paused; resume it to ingest events again');

    const resource = (headerValue(headers, 'sentry-hook-resource') ?? '').trim().toLowerCase();
    let events: ReturnType<NonNullable<ConnectorAdapter['normalizePush']>> = [];
    if (!NO_EVENTS.has(resource)) {
      let body: unknown;
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw httpError(400, 'invalid_payload', 'The body is not JSON');
      }
      try {
        events = adapter.normalizePush(body, settings);
      } catch (err) {
        if (isAdapterError(err, 'invalid_payload')) throw httpError(400, 'invalid_payload', err.message);
        throw err;
      }
    }
    if (events.length === 0) {
      // A verified delivery without events still tells the test operation that deliveries arrive.
      const now = new Date();
      await this.d.db('connectors').where({ id: c.id }).update({ last_delivery_at: now, last_activity_at: now });
      return { accepted: 0, duplicates: 0, group_ids: [] };
    }
    const outcomes = await this.d.queue.submit(
      events.map((event) => ({
        orgId: c.org_id,
        workspaceId: c.workspace_id,
        connectorId: c.id,
        source: 'error_tracker' as const,
        event,
      })),
    );
    return {
      accepted: outcomes.filter((o) => !o.duplicate).length,
      duplicates: outcomes.filter((o) => o.duplicate).length,
      group_ids: outcomes.map((o) => o.groupId),
    };
  }
}
