import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';
import type { Schema } from '../api/types';

export type Channel = Schema<'Channel'>;
export type Domain = Schema<'Domain'>;
export type InboundEmail = Schema<'InboundEmail'>;
export type InboundStatus = InboundEmail['status'];
export type DomainPurpose = Domain['purpose'];

/** Query keys of the inbox settings: a workspace's channel, its inbound log by status, its domains. */
export const inboxKeys = {
  all: ['inbox'] as const,
  channel: (workspaceId: string) => [...inboxKeys.all, 'channel', workspaceId] as const,
  inbound: (workspaceId: string, status: InboundStatus | '') =>
    [...inboxKeys.all, 'inbound', workspaceId, status] as const,
  inboundAll: (workspaceId: string) => [...inboxKeys.all, 'inbound', workspaceId] as const,
  domains: (workspaceId: string) => [...inboxKeys.all, 'domains', workspaceId] as const,
  domain: (brandProfileId: string, purpose: DomainPurpose) =>
    [...inboxKeys.all, 'domain', brandProfileId, purpose] as const,
};

/** Statuses still moving: the provider or DNS may change them without anyone acting. */
export const DOMAIN_SETTLED: Domain['status'][] = ['verified', 'failed'];

/**
 * The channel; polled every 5 s while a forwarding test waits to come back (its verification is
 * live) or a Gmail confirmation is pending.
 */
export const channelQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: inboxKeys.channel(workspaceId),
    queryFn: () => data(api.GET('/v1/channels/{workspaceId}', { params: { path: { workspaceId } } })),
    refetchInterval: (q) => {
      const f = q.state.data?.forwarding;
      return f && f.test && !f.verified_at ? 5000 : false;
    },
  });

export const domainsQuery = (workspaceId: string) =>
  queryOptions({
    queryKey: inboxKeys.domains(workspaceId),
    queryFn: () => data(api.GET('/v1/domains', { params: { query: { workspace_id: workspaceId } } })),
    // Domains change outside this window (another admin registers one, the service verifies it from DNS):
    // opening the page reads them again, however recent the cached list.
    refetchOnMount: 'always',
  });

/** One domain, read again every 5 s until its status settles (the service refreshes it from DNS when stale). */
export const domainQuery = (d: Pick<Domain, 'brand_profile_id' | 'purpose'>) =>
  queryOptions({
    queryKey: inboxKeys.domain(d.brand_profile_id, d.purpose),
    queryFn: () =>
      data(
        api.GET('/v1/domains/{brandProfileId}/{purpose}', {
          params: { path: { brandProfileId: d.brand_profile_id, purpose: d.purpose } },
        }),
      ),
    refetchInterval: (q) => (q.state.data && !DOMAIN_SETTLED.includes(q.state.data.status) ? 5000 : false),
  });
