import type { ConnectorService } from './services/connectors.js';
import type { ErrorGroupService } from './services/error-groups.js';
import type { IngestQueue } from './services/ingest-queue.js';
import type { PatternService } from './services/patterns.js';
import type { ConnectorPoller } from './services/poller.js';
import type { ProactiveTickets } from './services/proactive-tickets.js';
import type { SourceMapService } from './services/sourcemaps.js';

/** What the proactive plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    connectorPoller: ConnectorPoller;
    patternService: PatternService;
    patternMatcher: PatternService;
    errorIngest: IngestQueue;
    connectorService: ConnectorService;
    errorGroupService: ErrorGroupService;
    proactiveTickets: ProactiveTickets;
    sourceMapService: SourceMapService;
  }
}
