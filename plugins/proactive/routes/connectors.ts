import type { ServerRoute } from '@hapi/hapi';
import { requirePrincipal } from '../../../core/http/auth.js';
import {
  CloudLogsSetupSchema,
  ConnectorListSchema,
  ConnectorSchema,
  ConnectorTestSchema,
  ConnectorWithTokenSchema,
  OkSchema,
  connectorCreatePayload,
  connectorUpdatePayload,
  idParams,
  workspaceQuery,
} from '../schemas.js';
import type { ConnectorService, CreateConnectorInput } from '../services/connectors.js';
import type { Connector } from '../models.js';
import { ADMINS } from './context.js';

const TAG = 'connectors-admin';

/** Route table of connectors-admin (10 operations). */
export function connectorRoutes(svc: () => ConnectorService): ServerRoute[] {
  const one = async (c: Connector) => svc().serialize(c, (await svc().events24h(c.org_id, [c.id])).get(c.id) ?? 0);
  const idOf = (p: unknown) => (p as { id: string }).id;
  return [
    {
      method: 'GET',
      path: '/v1/connectors',
      options: {
        id: 'listConnectors',
        tags: [TAG],
        description: 'Lists the log connectors of a workspace',
        validate: { query: workspaceQuery },
        response: { status: { 200: ConnectorListSchema } },
        handler: async (request) => {
          const p = requirePrincipal(request);
          const rows = await svc().list(p, (request.query as { workspace_id: string }).workspace_id);
          const counts = await svc().events24h(
            p.orgId,
            rows.map((r) => r.id),
          );
          return { items: rows.map((r) => svc().serialize(r, counts.get(r.id) ?? 0)) };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/connectors',
      options: {
        id: 'createConnector',
        tags: [TAG],
        description: 'Creates a log connector; settings are checked by kind',
        notes:
          '422 invalid_settings with details.errors [{code, field, message}] (codes: missing_field, ' +
          'unknown_field, invalid_value, invalid_url, insecure_url, blocked_address, invalid_region, ' +
          'external_id_mismatch); 422 connector_kind_unavailable when no adapter of the kind is installed. The ' +
          "generic endpoint's token appears in this answer only.",
        validate: { payload: connectorCreatePayload },
        response: { status: { 201: ConnectorWithTokenSchema } },
        plugins: { patchwell: { ...ADMINS, successStatus: 201 } },
        handler: async (request, h) => {
          const { connector, token } = await svc().create(request.actor(), request.payload as CreateConnectorInput);
          return h.response({ connector: await one(connector), token }).code(201);
        },
      },
    },
    {
      method: 'GET',
      path: '/v1/connectors/setup/cloud_logs',
      options: {
        id: 'getCloudLogsSetup',
        tags: [TAG],
        description: 'The external id and policies for the role a cloud-logs connector assumes',
        validate: { query: workspaceQuery },
        response: { status: { 200: CloudLogsSetupSchema } },
        handler: async (request) =>
          svc().cloudLogsSetup(requirePrincipal(request), (request.query as { workspace_id: string }).workspace_id),
      },
    },
    {
      method: 'GET',
      path: '/v1/connectors/{id}',
      options: {
        id: 'getConnector',
        tags: [TAG],
        description: 'One connector (secrets as last4 only)',
        validate: { params: idParams },
        response: { status: { 200: ConnectorSchema } },
        handler: async (request) => one(await svc().load(requirePrincipal(request), idOf(request.params))),
      },
    },
    {
      method: 'PATCH',
      path: '/v1/connectors/{id}',
      options: {
        id: 'updateConnector',
        tags: [TAG],
        description: 'Changes name, config or secrets; only the secrets sent are replaced',
        validate: { params: idParams, payload: connectorUpdatePayload },
        response: { status: { 200: ConnectorSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) =>
          one(await svc().update(request.actor(), idOf(request.params), request.payload as { name?: string })),
      },
    },
    {
      method: 'DELETE',
      path: '/v1/connectors/{id}',
      options: {
        id: 'deleteConnector',
        tags: [TAG],
        description: 'Deletes a connector and its secrets; stored error events stay until retention',
        validate: { params: idParams },
        response: { status: { 200: OkSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => {
          await svc().remove(request.actor(), idOf(request.params));
          return { ok: true };
        },
      },
    },
    ...(['pause', 'resume'] as const).map((action): ServerRoute => ({
      method: 'POST',
      path: `/v1/connectors/{id}/${action}`,
      options: {
        id: action === 'pause' ? 'pauseConnector' : 'resumeConnector',
        tags: [TAG],
        description:
          action === 'pause'
            ? 'Pauses a connector: polling and ingestion stop (pushes answer 409 connector_paused)'
            : 'Resumes a paused connector; a polling connector polls at once',
        validate: { params: idParams },
        response: { status: { 200: ConnectorSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => one(await svc().setStatus(request.actor(), idOf(request.params), action)),
      },
    })),
    {
      method: 'POST',
      path: '/v1/connectors/{id}/rotate-token',
      options: {
        id: 'rotateConnectorToken',
        tags: [TAG],
        description: 'A new push token for a generic endpoint connector; the old one stops working',
        notes: '409 not_endpoint_connector for other kinds.',
        validate: { params: idParams },
        response: { status: { 200: ConnectorWithTokenSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => {
          const { connector, token } = await svc().rotateToken(request.actor(), idOf(request.params));
          return { connector: await one(connector), token };
        },
      },
    },
    {
      method: 'POST',
      path: '/v1/connectors/{id}/test',
      options: {
        id: 'testConnector',
        tags: [TAG],
        description: 'Tests the stored settings against the provider and records the outcome',
        notes:
          'Push-only connectors answer ok null with code awaiting_delivery or receiving (details.last_delivery_at) and keep their status.',
        validate: { params: idParams },
        response: { status: { 200: ConnectorTestSchema } },
        plugins: { patchwell: ADMINS },
        handler: async (request) => {
          const { result, connector } = await svc().test(request.actor(), idOf(request.params));
          return { ...result, connector: await one(connector) };
        },
      },
    },
  ];
}
