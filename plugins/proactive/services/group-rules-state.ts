/**
 * The state the grouping rules (group-rules.ts) read and write: the rows of the error-group
 * tables, keyed by group key (`workspace id \n fingerprint`), times as epoch milliseconds.
 */
import type { StackFrame } from '../../../core/contracts/index.js';
export type GroupStatus = 'watching' | 'ticketed' | 'resolved' | 'ignored';

export interface GroupState {
  orgId: string;
  workspaceId: string;
  fingerprint: string;
  status: GroupStatus;
  type: string;
  title: string;
  normalizedMessage: string;
  sampleStack: string | null;
  frames: StackFrame[];
  symbolicated: boolean;
  noise: boolean;
  eventCount: number;
  affectedUsers: number;
  firstSeen: number;
  lastSeen: number;
  release: string | null;
  sources: string[];
  environments: string[];
  trigger: string | null;
  criticalPathHit: boolean;
  heldReason: string | null;
  resolvedInRelease: string | null;
  resolvedAt: number | null;
  regressedAt: number | null;
  ticketId: string | null;
  triggeredAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface ReleaseState {
  status: string;
  eventCount: number;
  affectedUsers: number;
  firstSeen: number;
  lastSeen: number;
}

export interface EventState {
  groupKey: string;
  connectorId: string | null;
  externalId: string | null;
  source: string;
  release: string | null;
  environment: string | null;
  userKey: string | null;
  occurredAt: number;
  receivedAt: number;
}

/** What the statement reads and writes, for the groups and connectors a test looks at. */
export interface GroupsState {
  groups: Map<string, GroupState>;
  /** `group key \n release` ('' for none). */
  releases: Map<string, ReleaseState>;
  /** `group key \n user key`. */
  users: Map<string, { firstSeen: number; lastSeen: number }>;
  /** `group key \n release \n user key`: each user once per group and release. */
  releaseUsers: Set<string>;
  /** `group key \n hour (ms)`: events per hour occurred. */
  hours: Map<string, number>;
  /** `connector id \n hour (ms)`: events per connector and hour received. */
  connectorHours: Map<string, number>;
  /** Connector id → last delivery (and activity) time, for the connectors that have a row. */
  connectors: Map<string, number | null>;
  events: EventState[];
}

export interface BatchOutcome {
  state: GroupsState;
  /** Per incoming event, in order: its group and whether it was a duplicate. */
  outcomes: Array<{ groupKey: string; duplicate: boolean }>;
  /** The `proactive.group_triggered` announcements written. */
  announced: Array<{ groupKey: string; trigger: string }>;
}

export const emptyState = (): GroupsState => ({
  groups: new Map(),
  releases: new Map(),
  users: new Map(),
  releaseUsers: new Set(),
  hours: new Map(),
  connectorHours: new Map(),
  connectors: new Map(),
  events: [],
});
