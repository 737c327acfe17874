import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';

/** Query keys of the signed-in person (auth section). */
export const authKeys = {
  all: ['auth'] as const,
  me: () => [...authKeys.all, 'me'] as const,
};

export type AuthContext = Schema<'AuthContext'>;

export const meQuery = () =>
  queryOptions({
    queryKey: authKeys.me(),
    queryFn: () => data(api.GET('/v1/auth/me')),
    retry: false,
    staleTime: 60_000,
  });

/** The signed-in person, their organization and workspaces (GET /v1/auth/me). */
export function useMe() {
  return useQuery(meQuery());
}

/**
 * After an answer that carries an AuthContext (sign-in, verify, profile change): the cache
 * takes it, so the shell shows the new state without another request.
 */
export function useSetSession() {
  const client = useQueryClient();
  return (ctx: AuthContext) => client.setQueryData(authKeys.me(), ctx);
}

/** Signs out (POST /v1/auth/logout) and forgets every cached answer. */
export function useSignOut() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => data(api.POST('/v1/auth/logout')),
    onSuccess: () => client.clear(),
  });
}
