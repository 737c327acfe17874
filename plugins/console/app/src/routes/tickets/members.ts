import { useQuery } from '@tanstack/react-query';
import { api, data } from '../../api/client';

/**
 * The organization's members (GET /v1/members, owners, admins and reviewers may list them), for
 * the assignee filter and the assign action; the first 200 by age, disabled members left out.
 */
export function useMembers(enabled: boolean) {
  return useQuery({
    queryKey: ['members', 'list', 'first'],
    queryFn: () => data(api.GET('/v1/members', { params: { query: { limit: 200 } } })),
    select: (page) => page.items.filter((m) => !m.disabled_at),
    enabled,
    staleTime: 60_000,
  });
}
