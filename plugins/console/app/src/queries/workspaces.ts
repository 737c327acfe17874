import { createContext, useContext } from 'react';
import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';

/** Query keys of workspaces. */
export const workspaceKeys = {
  all: ['workspaces'] as const,
  list: () => [...workspaceKeys.all, 'list'] as const,
  detail: (id: string) => [...workspaceKeys.all, 'detail', id] as const,
};

export const workspaceQuery = (id: string) =>
  queryOptions({
    queryKey: workspaceKeys.detail(id),
    queryFn: () => data(api.GET('/v1/workspaces/{id}', { params: { path: { id } } })),
  });

/** The workspace the person works in now (the top bar's switcher); null when they have none. */
export interface CurrentWorkspace {
  workspaceId: string | null;
  setWorkspaceId: (id: string) => void;
}
export const WorkspaceContext = createContext<CurrentWorkspace>({ workspaceId: null, setWorkspaceId: () => {} });
export const useCurrentWorkspace = () => useContext(WorkspaceContext);

const KEY = 'pw.workspace';
export const storedWorkspace = () => localStorage.getItem(KEY);
export const storeWorkspace = (id: string) => localStorage.setItem(KEY, id);
