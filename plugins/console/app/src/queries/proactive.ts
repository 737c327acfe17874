import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';

export type Connector = Schema<'Connector'>;
export type ErrorGroup = Schema<'ErrorGroup'>;
export type ErrorGroupDetail = Schema<'ErrorGroupDetail'>;
export type GroupStatus = ErrorGroup['status'];
export type Pattern = Schema<'Pattern'>;
export type WidgetSettings = Schema<'WidgetSettings'>;
export type Release = Schema<'Release'>;

export const GROUP_STATUSES: GroupStatus[] = ['watching', 'ticketed', 'resolved', 'ignored'];

/** Query keys of the proactive area (connectors, error groups, source maps, patterns, widget) and of releases. */
export const proactiveKeys = {
  all: ['proactive'] as const,
  connectors: (workspaceId: string) => [...proactiveKeys.all, 'connectors', workspaceId] as const,
  groups: (workspaceId: string | null, statuses: GroupStatus[], q: string) =>
    [...proactiveKeys.all, 'groups', workspaceId, statuses, q] as const,
  groupLists: () => [...proactiveKeys.all, 'groups'] as const,
  group: (id: string) => [...proactiveKeys.all, 'group', id] as const,
  mapReleases: (workspaceId: string) => [...proactiveKeys.all, 'map-releases', workspaceId] as const,
  maps: (workspaceId: string, release: string) => [...proactiveKeys.all, 'maps', workspaceId, release] as const,
  patterns: (workspaceId: string | null, scope: string) =>
    [...proactiveKeys.all, 'patterns', workspaceId, scope] as const,
  patternLists: () => [...proactiveKeys.all, 'patterns'] as const,
  widget: (workspaceId: string) => [...proactiveKeys.all, 'widget', workspaceId] as const,
};

export const releaseKeys = {
  all: ['releases'] as const,
  list: (workspaceId: string | null, status: string) => [...releaseKeys.all, 'list', workspaceId, status] as const,
  detail: (id: string) => [...releaseKeys.all, 'detail', id] as const,
};

export const connectorsQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: proactiveKeys.connectors(workspaceId),
    queryFn: () => data(api.GET('/v1/connectors', { params: { query: { workspace_id: workspaceId } } })),
  });

export const errorGroupQuery = (id: string) =>
  queryOptions({
    queryKey: proactiveKeys.group(id),
    queryFn: () => data(api.GET('/v1/error-groups/{id}', { params: { path: { id } } })),
  });

export const widgetQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: proactiveKeys.widget(workspaceId),
    queryFn: () => data(api.GET('/v1/workspaces/{id}/widget', { params: { path: { id: workspaceId } } })),
  });

/** A release moving through its steps is polled, so the page follows it without a reload. */
const MOVING: Release['status'][] = ['merging', 'tagging', 'releasing', 'notifying'];
export const releaseQuery = (id: string) =>
  queryOptions({
    queryKey: releaseKeys.detail(id),
    queryFn: () => data(api.GET('/v1/releases/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data && MOVING.includes(q.state.data.status) ? 3000 : false),
  });
