import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { AuthContext } from './session';

/** Query keys of the agency area. */
export const agencyKeys = {
  all: ['agency'] as const,
  overview: () => [...agencyKeys.all, 'overview'] as const,
  queue: () => [...agencyKeys.all, 'queue'] as const,
  whiteLabel: () => [...agencyKeys.all, 'white-label'] as const,
  client: (id: string) => [...agencyKeys.all, 'client', id] as const,
  reports: (workspaceId: string) => [...agencyKeys.all, 'reports', workspaceId] as const,
  report: (id: string) => [...agencyKeys.all, 'report', id] as const,
  resale: () => [...agencyKeys.all, 'resale'] as const,
  partner: () => [...agencyKeys.all, 'partner'] as const,
};

/** The agency operations answer 403 not_an_agency to other organizations: the console offers them to agencies only. */
export const isAgency = (me: AuthContext) => me.organization.type === 'agency';

export const agencyOverviewQuery = () =>
  queryOptions({ queryKey: agencyKeys.overview(), queryFn: () => data(api.GET('/v1/agency/overview')) });
export const agencyQueueQuery = () =>
  queryOptions({ queryKey: agencyKeys.queue(), queryFn: () => data(api.GET('/v1/agency/queue')) });
export const agencyWhiteLabelQuery = () =>
  queryOptions({ queryKey: agencyKeys.whiteLabel(), queryFn: () => data(api.GET('/v1/agency/white-label')) });
export const agencyClientQuery = (id: string) =>
  queryOptions({
    queryKey: agencyKeys.client(id),
    queryFn: () => data(api.GET('/v1/agency/clients/{id}', { params: { path: { id } } })),
  });
export const agencyReportQuery = (id: string) =>
  queryOptions({
    queryKey: agencyKeys.report(id),
    queryFn: () => data(api.GET('/v1/agency/reports/{id}', { params: { path: { id } } })),
  });
export const agencyResaleQuery = () =>
  queryOptions({ queryKey: agencyKeys.resale(), queryFn: () => data(api.GET('/v1/agency/resale')) });
export const agencyPartnerQuery = () =>
  queryOptions({ queryKey: agencyKeys.partner(), queryFn: () => data(api.GET('/v1/agency/partner')) });
