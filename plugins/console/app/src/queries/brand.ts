import { queryOptions, useQueryClient } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';

/** Query keys of brand profiles. */
export const brandKeys = {
  all: ['brand'] as const,
  overview: () => [...brandKeys.all, 'overview'] as const,
  profile: (id: string) => [...brandKeys.all, 'profile', id] as const,
};

export type BrandProfile = Schema<'BrandProfile'>;
export type BrandOverview = Schema<'BrandOverview'>;

/** Brand profiles and which one each workspace uses (owners and admins). */
export const brandQuery = () =>
  queryOptions({ queryKey: brandKeys.overview(), queryFn: () => data(api.GET('/v1/brand')), staleTime: 5 * 60_000 });

/** One brand profile (the editor's). */
export const brandProfileQuery = (id: string) =>
  queryOptions({
    queryKey: brandKeys.profile(id),
    queryFn: () => data(api.GET('/v1/brand/profiles/{id}', { params: { path: { id } } })),
  });

/** After a change to a profile: the cache takes the answer, and the overview (the shell reads the brand color from it) is read again. */
export function useProfileInCache() {
  const client = useQueryClient();
  return (p: BrandProfile) => {
    client.setQueryData(brandKeys.profile(p.id), p);
    void client.invalidateQueries({ queryKey: brandKeys.overview() });
  };
}
