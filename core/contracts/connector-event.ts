/** The error event every connector brings in, whatever its source (the generic ingest body's shape). */

export type EventLevel = 'fatal' | 'error' | 'warning' | 'info' | 'debug';
export const EVENT_LEVELS: readonly EventLevel[] = ['fatal', 'error', 'warning', 'info', 'debug'];

/** One stack frame (spec: ErrorGroupDetail.frames), as the source reported it. */
export interface StackFrame {
  file: string;
  function?: string;
  line?: number;
  column?: number;
  in_app?: boolean;
}

export interface EventUser {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
}

export interface EventBrowser {
  user_agent?: string;
  name?: string;
  version?: string;
  os?: string;
}

/** One breadcrumb of a Sentry SDK event: what happened before the error. */
export interface EventBreadcrumb {
  timestamp?: string;
  type?: string;
  category?: string;
  level?: string;
  message?: string;
  data?: Record<string, unknown>;
}

/**
 * What an event carries beyond its error, kept with the stored event (error_events.context) and
 * shown in a group's events: the SDK's tags, breadcrumbs and name/version, and the source-map debug
 * ids of its bundles (by bundle URL, from the event's `debug_meta.images`).
 */
export interface EventContext {
  tags?: Record<string, string>;
  breadcrumbs?: EventBreadcrumb[];
  sdk?: { name: string; version?: string };
  debug_ids?: Record<string, string>;
}

/**
 * An error event from any source, in the shape of the generic ingest body (snake_case, as it is
 * stored and as `POST /v1/ingest/{connectorId}` takes it).
 */
export interface NormalizedEvent {
  /** The source's id of the event; with the connector, the deduplication key. */
  external_id?: string;
  /** Error type or class, e.g. `TypeError`. */
  type: string;
  message: string;
  level: EventLevel;
  stack?: string;
  frames?: StackFrame[];
  url?: string;
  release?: string;
  environment?: string;
  user?: EventUser;
  /** ISO 8601 date-time. */
  occurred_at: string;
  /** The source's grouping key, when it has one. */
  fingerprint?: string;
  browser?: EventBrowser;
  context?: EventContext;
}
