import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';

/** Query keys of the security area: the overview (single sign-on and governance) and the organization. */
export const securityKeys = {
  all: ['security'] as const,
  overview: () => [...securityKeys.all, 'overview'] as const,
  organization: () => [...securityKeys.all, 'organization'] as const,
};

export type SecurityOverview = Schema<'SecurityOverview'>;
export type SsoOverview = Schema<'SsoOverview'>;
export type SsoConnection = Schema<'SsoConnection'>;
export type SsoDomain = Schema<'SsoDomain'>;
export type Governance = Schema<'Governance'>;
export type Organization = Schema<'Organization'>;

/** Single sign-on and approval governance of the organization (owners and admins). */
export const securityQuery = () =>
  queryOptions({ queryKey: securityKeys.overview(), queryFn: () => data(api.GET('/v1/security')) });

/** The organization's own settings (any member reads them). */
export const organizationQuery = () =>
  queryOptions({ queryKey: securityKeys.organization(), queryFn: () => data(api.GET('/v1/orgs/current')) });
