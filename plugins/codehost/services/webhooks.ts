import { isAdapterError, type RawHeaders } from '../../../core/contracts/index.js';
import { httpError } from '../../../core/http/errors.js';
import { InstallationModel } from '../models/index.js';
import type { CodehostDeps } from './deps.js';

/**
 * POST /v1/webhooks/codehost: the signature (X-Hub-Signature-256 over the raw body, constant
 * time) is checked first; the delivery is recorded once by its id (a redelivery is a no-op) and
 * handed to the `webhooks` consumer through the outbox in the same transaction.
 */
export class WebhookService {
  constructor(private readonly d: CodehostDeps) {}

  async receive(
    headers: RawHeaders,
    rawBody: Buffer,
  ): Promise<{ duplicate: boolean; deliveryId: string; event: string }> {
    const host = this.d.host;
    if (!host.verifyWebhook(headers, rawBody))
      throw httpError(401, 'invalid_signature', 'The X-Hub-Signature-256 signature is missing or does not match');
    let event;
    try {
      event = host.parseWebhook(headers, rawBody);
    } catch (err) {
      if (isAdapterError(err)) throw httpError(400, 'invalid_payload', err.message);
      throw err;
    }
    const inst = event.installationId
      ? await InstallationModel.query(this.d.db)
          .acrossOrgs('webhook routing by installation')
          .where({ host: host.identifier, external_id: event.installationId })
          .whereNull('removed_at')
          .limit(1)
          .first()
      : undefined;
    const orgId = inst?.org_id ?? null;
    const duplicate = await this.d.db.transaction(async (trx) => {
      const inserted = await trx('codehost_webhook_deliveries')
        .insert({
          host: host.identifier,
          delivery_id: event.deliveryId,
          org_id: orgId,
          event: event.name,
          kind: event.kind,
          action: event.action,
          installation_external_id: event.installationId,
          repository_external_id: event.repository?.id ?? null,
          payload: JSON.stringify(event.payload),
        })
        .onConflict(['host', 'delivery_id'])
        .ignore()
        .returning('delivery_id');
      if (inserted.length === 0) return true;
      await this.d.outbox.add(
        trx,
        'codehost.webhook_received',
        {
          host: host.identifier,
          delivery_id: event.deliveryId,
          event: event.name,
          kind: event.kind,
          action: event.action,
        },
        { orgId },
      );
      return false;
    });
    return { duplicate, deliveryId: event.deliveryId, event: event.name };
  }

  /** Deletes deliveries past retention (scheduled). */
  async purge(): Promise<number> {
    return this.d
      .db('codehost_webhook_deliveries')
      .where('received_at', '<', new Date(Date.now() - this.d.options.deliveryRetentionDays * 86_400_000))
      .delete();
  }
}
