import Joi from 'joi';
import { CONNECTOR_KINDS, CONNECTOR_SECRET_NAMES } from '../../core/contracts/index.js';
import { paginationQuery, pageSchema } from '../../core/http/pagination.js';
import { isoTime, nullableTime } from '../../core/http/times.js';

/** Answer and request shapes of the proactive sections; each `.id()` schema is one OpenAPI component. */

const int = () => Joi.number().integer();
const id = () => Joi.string().max(100);

export const GROUP_STATUSES = ['watching', 'ticketed', 'resolved', 'ignored'] as const;
export const GROUP_TRIGGERS = ['user_threshold', 'critical_path', 'regression'] as const;
export const EVENT_SOURCES = ['widget', 'error_tracker', 'metrics_platform', 'cloud_logs', 'endpoint'] as const;

export const ConnectorSchema = Joi.object({
  id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  kind: Joi.string()
    .valid(...CONNECTOR_KINDS)
    .required(),
  name: Joi.string().required(),
  status: Joi.string().valid('active', 'paused', 'error').required(),
  config: Joi.object().unknown(true).required(),
  secrets: Joi.array()
    .items(
      Joi.object({
        name: Joi.string()
          .valid(...CONNECTOR_SECRET_NAMES)
          .required(),
        last4: Joi.string().allow('').required(),
      }),
    )
    .required(),
  webhook_url: Joi.string().uri().allow(null).required(),
  ingest_url: Joi.string().uri().allow(null).required(),
  dsn: Joi.string()
    .allow(null)
    .required()
    .description(
      'Endpoint connectors: the DSN for the Sentry SDKs (`https://<public key>@<host>/<project id>`); ' +
        'a token rotation replaces it. Null for other kinds. An extension beyond the spec (docs/proactive.md, "Sentry SDKs").',
    ),
  white_label: Joi.boolean().required(),
  white_label_pending: Joi.boolean().required(),
  key_id: Joi.string().allow(null).required(),
  polls: Joi.boolean().required(),
  last_activity_at: nullableTime(),
  next_poll_at: nullableTime(),
  last_error_code: Joi.string().allow(null).required(),
  last_error: Joi.string().allow(null).required(),
  events_24h: int().required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('Connector');

export const ConnectorWithTokenSchema = Joi.object({
  connector: ConnectorSchema.required(),
  token: Joi.string()
    .allow(null)
    .required()
    .description("The generic endpoint's push token; shown in this answer only (null for other kinds)"),
})
  .required()
  .id('ConnectorWithToken');

export const ConnectorListSchema = Joi.object({ items: Joi.array().items(ConnectorSchema).required() }).required();

export const ConnectorTestSchema = Joi.object({
  ok: Joi.boolean().allow(null).required(),
  code: Joi.string().required(),
  message: Joi.string().required(),
  details: Joi.object().unknown(true).required(),
  connector: ConnectorSchema.required(),
}).required();

export const CloudLogsSetupSchema = Joi.object({
  external_id: Joi.string().required(),
  principal_arn: Joi.string().required(),
  trust_policy: Joi.string().required(),
  permissions_policy: Joi.string().required(),
})
  .required()
  .id('CloudLogsSetup');

export const OkSchema = Joi.object({ ok: Joi.boolean().valid(true).required() }).required();

const secretsInput = Joi.object().pattern(Joi.string().max(60), Joi.string().min(1).max(4096)).max(10);

export const connectorCreatePayload = Joi.object({
  workspace_id: id().required(),
  kind: Joi.string()
    .valid(...CONNECTOR_KINDS)
    .required(),
  name: Joi.string().trim().min(1).max(120).required(),
  config: Joi.object().unknown(true).max(30).default({}),
  secrets: secretsInput.default({}),
});

export const connectorUpdatePayload = Joi.object({
  name: Joi.string().trim().min(1).max(120),
  config: Joi.object().unknown(true).max(30),
  secrets: secretsInput,
}).min(1);

export const idParams = Joi.object({ id: id().required() });
export const workspaceQuery = Joi.object({ workspace_id: id().required() });

export const IngestReceiptSchema = Joi.object({
  accepted: int().required().description('Events stored now'),
  duplicates: int().required().description('Events already stored (same external_id from this connector)'),
  group_ids: Joi.array().items(Joi.string()).required().description('The group of each event, in the order sent'),
})
  .required()
  .id('IngestReceipt');

export const SentryReceiptSchema = IngestReceiptSchema.keys({
  id: Joi.string()
    .allow(null)
    .required()
    .description("Sentry's answer: the envelope's (or its first event's) event_id; null when it carried none"),
  skipped: Joi.object()
    .pattern(Joi.string(), int())
    .required()
    .description(
      'Items accepted but not stored, by envelope item type (session, transaction, client_report, attachment, …)',
    ),
}).id('SentryReceipt');

// ---- error groups

const TicketRef = Joi.object({
  id: Joi.string().required(),
  subject: Joi.string().allow(null, '').required(),
  state: Joi.string().required(),
  origin: Joi.string().required(),
  resolved_version: Joi.string().allow(null).required(),
  released_at: nullableTime(),
})
  .allow(null)
  .required();

export const ErrorGroupSchema = Joi.object({
  id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  status: Joi.string()
    .valid(...GROUP_STATUSES)
    .required(),
  type: Joi.string().required(),
  title: Joi.string().required(),
  affected_users: int().required(),
  users_24h: int().required(),
  event_count: int().required(),
  events_24h: int().required(),
  trend: Joi.array().items(int()).required().description('Events per hour over the last 24 hours, oldest first'),
  first_seen: isoTime().required(),
  last_seen: isoTime().required(),
  release: Joi.string().allow(null).required(),
  sources: Joi.array()
    .items(Joi.string().valid(...EVENT_SOURCES))
    .required(),
  trigger: Joi.string()
    .valid(...GROUP_TRIGGERS)
    .allow(null)
    .required(),
  critical_path_hit: Joi.boolean().required(),
  noise: Joi.boolean().required(),
  held_reason: Joi.string().allow(null).required(),
  held_at: nullableTime(),
  resolved_in_release: Joi.string().allow(null).required(),
  resolved_at: nullableTime(),
  regressed_at: nullableTime(),
  ticket: TicketRef,
}).id('ErrorGroup');

const Generated = Joi.object({
  file: Joi.string().allow(null).required(),
  function: Joi.string().allow(null).required(),
  line: int().allow(null).required(),
  column: int().allow(null).required(),
})
  .allow(null)
  .required();

export const ErrorGroupDetailSchema = Joi.object({
  group: ErrorGroupSchema.required(),
  normalized_message: Joi.string().allow('').required(),
  sample_stack: Joi.string().allow(null, '').required(),
  frames: Joi.array()
    .items(
      Joi.object({
        file: Joi.string().required(),
        function: Joi.string().allow(null).required(),
        line: int().allow(null).required(),
        column: int().allow(null).required(),
        in_app: Joi.boolean().required(),
        generated: Generated,
      }),
    )
    .required(),
  symbolicated: Joi.boolean().required(),
  events: Joi.array()
    .items(
      Joi.object({
        id: Joi.string().required(),
        source: Joi.string()
          .valid(...EVENT_SOURCES)
          .required(),
        external_id: Joi.string().allow(null).required(),
        type: Joi.string().required(),
        level: Joi.string().required(),
        message: Joi.string().allow('').required(),
        url: Joi.string().allow(null).required(),
        browser: Joi.object().unknown(true).allow(null).required(),
        release: Joi.string().allow(null).required(),
        environment: Joi.string().allow(null).required(),
        user: Joi.object().unknown(true).allow(null).required(),
        occurred_at: isoTime().required(),
        symbolicated: Joi.boolean().required(),
        context: Joi.object({
          tags: Joi.object().pattern(Joi.string(), Joi.string()),
          breadcrumbs: Joi.array().items(Joi.object().unknown(true)),
          sdk: Joi.object({ name: Joi.string().required(), version: Joi.string() }),
          debug_ids: Joi.object().pattern(Joi.string(), Joi.string()),
        })
          .allow(null)
          .required()
          .description(
            'What a Sentry SDK sent beyond the error: tags, breadcrumbs (masked), the SDK; null for other ' +
              'sources. An extension beyond the spec (docs/proactive.md, "Sentry SDKs").',
          ),
      }),
    )
    .required(),
  releases: Joi.array()
    .items(
      Joi.object({
        group_id: Joi.string().required(),
        release: Joi.string().allow(null).required(),
        status: Joi.string().required(),
        event_count: int().required(),
        affected_users: int().required(),
        first_seen: isoTime().required(),
        last_seen: isoTime().required(),
        resolved_in_release: Joi.string().allow(null).required(),
      }),
    )
    .required(),
  environments: Joi.array().items(Joi.string()).required(),
  capabilities: Joi.object({
    ignore: Joi.boolean().required(),
    unignore: Joi.boolean().required(),
    resolve: Joi.boolean().required(),
    open_ticket: Joi.boolean().required(),
  }).required(),
})
  .required()
  .id('ErrorGroupDetail');

export const ProactiveOverviewSchema = Joi.object({
  workspace_id: Joi.string().allow(null).required(),
  enabled: Joi.boolean().required(),
  plan_allows: Joi.boolean().required(),
  threshold_users: int().required(),
  critical_paths: Joi.array().items(Joi.string()).required(),
  notify_affected_users: Joi.boolean().required(),
  monthly_fix_cap: int().required(),
  fixes_this_month: int().required(),
  pending_tickets: int().required(),
  cap_reached: Joi.boolean().required(),
  counts: Joi.object({
    watching: int().required(),
    ticketed: int().required(),
    resolved: int().required(),
    ignored: int().required(),
    held: int().required(),
  }).required(),
})
  .required()
  .id('ProactiveOverview');

export const ErrorGroupListSchema = Joi.object({
  items: Joi.array().items(ErrorGroupSchema).required(),
  next_cursor: Joi.string().allow(null).required(),
  overview: ProactiveOverviewSchema,
}).required();

export const ErrorGroupTicketSchema = Joi.object({
  outcome: Joi.string().valid('opened', 'linked').required(),
  ticket_id: Joi.string().required(),
  detail: ErrorGroupDetailSchema,
}).required();

export const errorGroupListQuery = Joi.object({
  cursor: Joi.string().max(500),
  limit: Joi.number().integer().min(1).max(200).default(50),
  workspace_id: id(),
  status: Joi.array()
    .items(Joi.string().valid(...GROUP_STATUSES))
    .single(),
  q: Joi.string().trim().max(200).allow(''),
});

export const resolvePayload = Joi.object({ release: Joi.string().trim().min(1).max(200) }).allow(null);

// ---- sourcemaps

const releaseName = () => Joi.string().trim().min(1).max(200);

export const SourceMapSchema = Joi.object({
  id: Joi.string().required(),
  workspace_id: Joi.string().required(),
  release: Joi.string().required(),
  url_path: Joi.string()
    .required()
    .description("The bundle's URL path (no scheme, host or query), e.g. /static/js/app.js"),
  size: int().required().description('Bytes of the map'),
  sha256: Joi.string().required(),
  sources_count: int().required(),
  created_at: isoTime().required(),
  updated_at: isoTime().required(),
}).id('SourceMap');

export const SourceMapListSchema = pageSchema(SourceMapSchema).id('SourceMapList');

export const SourceMapUploadResultSchema = Joi.object({
  workspace_id: Joi.string().required(),
  release: Joi.string().required(),
  files: Joi.array().items(SourceMapSchema).required(),
}).id('SourceMapUploadResult');

export const SourceMapDeleteResultSchema = Joi.object({
  workspace_id: Joi.string().required(),
  release: Joi.string().required(),
  deleted: int().required(),
}).id('SourceMapDeleteResult');

export const SourceMapReleaseListSchema = Joi.object({
  items: Joi.array()
    .items(
      Joi.object({
        workspace_id: Joi.string().required(),
        release: Joi.string().required(),
        files: int().required(),
        size: int().required(),
        first_uploaded_at: isoTime().required(),
        last_uploaded_at: isoTime().required(),
      }),
    )
    .required(),
  next_cursor: Joi.string().allow(null).required(),
}).id('SourceMapReleaseList');

export const sourceMapQuery = Joi.object({
  workspace_id: id().required(),
  release: releaseName().required(),
  ...paginationQuery,
});

export const sourceMapReleaseQuery = Joi.object({
  workspace_id: id().required(),
  ...paginationQuery,
});

export const sourceMapDeleteQuery = Joi.object({
  workspace_id: id().required(),
  release: releaseName().required(),
});

export const sourceMapUploadPayload = (maxFiles: number) =>
  Joi.object({
    workspace_id: id().required(),
    release: releaseName().required(),
    files: Joi.array()
      .min(1)
      .max(maxFiles)
      .items(
        Joi.object({
          url_path: Joi.string()
            .trim()
            .min(1)
            .max(1000)
            .required()
            .description(
              "The bundle's URL (https://cdn…/static/js/app.js) or path (/static/js/app.js, ~/static/js/app.js)",
            ),
          map: Joi.string().min(2).required().description('The source map (revision 3) as JSON text'),
        }),
      )
      .required(),
  });
