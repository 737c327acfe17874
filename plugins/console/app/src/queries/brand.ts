import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';

/** Query keys of brand profiles. */
export const brandKeys = {
  all: ['brand'] as const,
  overview: () => [...brandKeys.all, 'overview'] as const,
};

/** Brand profiles and which one each workspace uses (owners and admins). */
export const brandQuery = () =>
  queryOptions({ queryKey: brandKeys.overview(), queryFn: () => data(api.GET('/v1/brand')), staleTime: 5 * 60_000 });
