import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { requirePrincipal } from '../../../core/http/auth.js';
import type { AgencyConsole } from '../services/console.js';
import { isoTime, nullableTime } from '../../../core/http/times.js';

const tags = ['agency'];
const OWNERS_ADMINS = { roles: ['owner', 'admin'] };
const int = () => Joi.number().integer().required();

const cardKeys = {
  workspace_id: Joi.string().required(),
  name: Joi.string().required(),
  client_name: Joi.string().required(),
  tickets: Joi.object({
    open: int(),
    awaiting_approval: int(),
    escalated: int(),
    overdue: int(),
    opened_this_month: int(),
    resolved_this_month: int(),
  }).required(),
  white_label: Joi.object({
    ready: Joi.boolean().required(),
    missing: Joi.array().items(Joi.string()).required(),
  }).required(),
  resale_price_usd: Joi.number().allow(null).required(),
  managed_addon: Joi.boolean().required(),
};
const ClientCardSummary = Joi.object(cardKeys).id('AgencyClientSummary');

const OverviewSchema = Joi.object({
  clients: Joi.array().items(ClientCardSummary).required(),
  totals: Joi.object({
    clients: int(),
    open: int(),
    awaiting_approval: int(),
    escalated: int(),
    overdue: int(),
    white_label_ready: int(),
  }).required(),
}).id('AgencyOverview');

const ClientCardSchema = Joi.object({
  ...cardKeys,
  service_levels: Joi.object({
    first_response_minutes: int(),
    resolution_minutes: int(),
    last_30_days: Joi.object({
      responded: int(),
      first_response_met_rate: Joi.number().allow(null).required(),
      resolved: int(),
      resolution_met_rate: Joi.number().allow(null).required(),
    }).required(),
  }).required(),
  report_settings: Joi.object({
    recipients: Joi.array().items(Joi.string()).required(),
    intro: Joi.string().allow(null).required(),
    auto_send: Joi.boolean().required(),
  }).required(),
  consent: Joi.object({
    share_policy: Joi.string().valid('snippets', 'references_only').required(),
    patterns_opt_in: Joi.boolean().required(),
    notify_affected_users: Joi.boolean().required(),
  }).required(),
  billing: Joi.object({
    resale_price_usd: Joi.number().allow(null).required(),
    collect_via_connect: Joi.boolean().required(),
    client_email: Joi.string().allow(null).required(),
  }).required(),
}).id('AgencyClientCard');

const QueueSchema = Joi.object({
  items: Joi.array()
    .items(
      Joi.object({
        kind: Joi.string().valid('approval', 'escalation').required(),
        ticket_id: Joi.string().required(),
        workspace_id: Joi.string().required(),
        client_name: Joi.string().required(),
        subject: Joi.string().required(),
        state: Joi.string().valid('awaiting_approval', 'escalated').required(),
        priority: Joi.string().required(),
        reason: Joi.string().allow(null).required(),
        waiting_since: nullableTime(),
        sla: Joi.object({
          due_at: nullableTime(),
          remaining_minutes: Joi.number().integer().allow(null).required(),
          overdue: Joi.boolean().required(),
        }).required(),
      }),
    )
    .required(),
  total: int(),
}).id('AgencyQueue');

const ResaleSchema = Joi.object({
  currency: Joi.string().valid('usd').required(),
  period: Joi.object({ start: isoTime().required(), end: isoTime().required() }).required(),
  items: Joi.array()
    .items(
      Joi.object({
        workspace_id: Joi.string().required(),
        client_name: Joi.string().required(),
        resale_price_usd: Joi.number().allow(null).required(),
        collect_via_connect: Joi.boolean().required(),
        client_email: Joi.string().allow(null).required(),
        cost_usd: Joi.number().required(),
        margin_usd: Joi.number().allow(null).required(),
        margin_rate: Joi.number().allow(null).required(),
      }),
    )
    .required(),
  totals: Joi.object({
    clients: int(),
    priced: int(),
    revenue_usd: Joi.number().required(),
    cost_usd: Joi.number().required(),
    margin_usd: Joi.number().required(),
    margin_rate: Joi.number().allow(null).required(),
  }).required(),
}).id('AgencyResale');

/** Overview, client card, queue and resale of the agency section. */
export function consoleRoutes(console: () => AgencyConsole): ServerRoute[] {
  return [
    {
      method: 'GET',
      path: '/v1/agency/overview',
      options: {
        id: 'getAgencyOverview',
        tags,
        description: 'A card per client workspace, with totals',
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: OverviewSchema } },
        handler: async (request) => console().overview(requirePrincipal(request)),
      },
    },
    {
      method: 'GET',
      path: '/v1/agency/clients/{id}',
      options: {
        id: 'getAgencyClient',
        tags,
        description: 'One client card: service levels, report settings, consent',
        notes: 'id is the client workspace id; a workspace without client_name or of another organization answers 404.',
        validate: { params: Joi.object({ id: Joi.string().max(64).required() }) },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ClientCardSchema } },
        handler: async (request) => console().client(requirePrincipal(request), (request.params as { id: string }).id),
      },
    },
    {
      method: 'GET',
      path: '/v1/agency/queue',
      options: {
        id: 'getAgencyQueue',
        tags,
        description: 'Approvals and escalations of every client with SLA timers',
        notes:
          'The most urgent first (SLA due time, then age); at most `limit` items (default 200), `total` counts them all.',
        validate: { query: Joi.object({ limit: Joi.number().integer().min(1).max(500).default(200) }) },
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: QueueSchema } },
        handler: async (request) =>
          console().queue(requirePrincipal(request), (request.query as { limit: number }).limit),
      },
    },
    {
      method: 'GET',
      path: '/v1/agency/resale',
      options: {
        id: 'getAgencyResale',
        tags,
        description: 'Resale of the current month: prices, costs, margins per client',
        plugins: { patchwell: OWNERS_ADMINS },
        response: { status: { 200: ResaleSchema } },
        handler: async (request) => console().resale(requirePrincipal(request)),
      },
    },
  ];
}
