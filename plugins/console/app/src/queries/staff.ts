import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { operations } from '../api/schema';

/** The organization list's filters as GET /v1/staff/organizations names them. */
export type StaffFilters = Omit<
  NonNullable<operations['listStaffOrganizations']['parameters']['query']>,
  'cursor' | 'limit'
>;
export type ClaimStatus = NonNullable<NonNullable<operations['listStaffClaims']['parameters']['query']>['status']>;

/** Query keys of the operator's desk (staff only). */
export const staffKeys = {
  all: ['staff'] as const,
  organizations: (filters: StaffFilters) => [...staffKeys.all, 'organizations', filters] as const,
  organization: (id: string) => [...staffKeys.all, 'organization', id] as const,
  claims: (status: ClaimStatus | '') => [...staffKeys.all, 'claims', status] as const,
};

export const staffOrganizationQuery = (id: string) =>
  queryOptions({
    queryKey: staffKeys.organization(id),
    queryFn: () => data(api.GET('/v1/staff/organizations/{id}', { params: { path: { id } } })),
  });

/** The plans a staff member may grant, in the order people read them. */
export const GRANTABLE_PLANS = [
  'enterprise',
  'agency',
  'growth',
  'startup',
  'indie',
  'managed',
  'open_source',
  'none',
] as const;
