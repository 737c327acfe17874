import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { RawHeaders } from '../../../core/contracts/index.js';
import { IngestReceiptSchema } from '../schemas.js';
import type { IngestReceipt } from '../services/ingest.js';

/** What differs between two push routes of a connector: the path, the docs and the service call. */
export interface ConnectorPushRoute {
  path: string;
  id: string;
  tags: string[];
  description: string;
  notes: string;
  maxBytes: number;
  receive: (connectorId: string, headers: RawHeaders, body: Buffer) => Promise<IngestReceipt>;
}

/**
 * A route where a vendor pushes events to one connector: the raw JSON body (for the signature or
 * token check), a 202 with the ingest receipt once the events are stored and grouped.
 */
export function connectorPushRoute(route: ConnectorPushRoute): ServerRoute {
  const { path, id, tags, description, notes, maxBytes, receive } = route;
  return {
    method: 'POST',
    path,
    options: {
      id,
      tags,
      description,
      notes,
      auth: false,
      payload: { parse: false, output: 'data', maxBytes, allow: ['application/json'] },
      validate: { params: Joi.object({ connectorId: Joi.string().max(100).required() }) },
      response: { status: { 202: IngestReceiptSchema } },
      // Error events are stored with NULs dropped and lone surrogates replaced (group-writer), never refused.
      plugins: { patchwell: { successStatus: 202, rawBody: { contentType: 'application/json' }, cleansText: true } },
      handler: async (request, h) => {
        const body = Buffer.isBuffer(request.payload)
          ? request.payload
          : Buffer.from((request.payload as string | null) ?? '');
        const { connectorId } = request.params as { connectorId: string };
        const receipt = await receive(connectorId, request.headers as RawHeaders, body);
        return h.response(receipt).code(202);
      },
    },
  };
}
