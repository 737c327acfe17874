import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';

export type Repository = Schema<'Repository'>;
export type ExecutionSettings = Schema<'ExecutionSettings'>;
export type OssSettings = Schema<'OssSettings'>;

/** Query keys of the code area: a workspace's repositories, one repository, execution and open-source settings. */
export const codeKeys = {
  all: ['code'] as const,
  repositories: (workspaceId: string) => [...codeKeys.all, 'repositories', workspaceId] as const,
  repository: (id: string) => [...codeKeys.all, 'repository', id] as const,
  execution: (workspaceId: string) => [...codeKeys.all, 'execution', workspaceId] as const,
  oss: (workspaceId: string) => [...codeKeys.all, 'oss', workspaceId] as const,
};

/** The workspace's repositories (plans allow a few per workspace: one page of the maximum is all of them). */
export const repositoriesQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: codeKeys.repositories(workspaceId),
    queryFn: () => data(api.GET('/v1/repositories', { params: { query: { workspace_id: workspaceId, limit: 200 } } })),
  });

const INDEXING: Repository['index']['status'][] = ['queued', 'building'];

/** One repository, polled every 3 s while its code index is queued or building. */
export const repositoryQuery = (id: string) =>
  queryOptions({
    queryKey: codeKeys.repository(id),
    queryFn: () => data(api.GET('/v1/repositories/{id}', { params: { path: { id } } })),
    refetchInterval: (q) => (q.state.data && INDEXING.includes(q.state.data.index.status) ? 3000 : false),
  });

export const executionQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: codeKeys.execution(workspaceId),
    queryFn: () => data(api.GET('/v1/onboarding/execution/{workspaceId}', { params: { path: { workspaceId } } })),
  });

export const ossQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: codeKeys.oss(workspaceId),
    queryFn: () => data(api.GET('/v1/codehost/oss/{workspaceId}', { params: { path: { workspaceId } } })),
  });
