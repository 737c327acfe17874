import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';

/** Query keys of the onboarding wizard. */
export const onboardingKeys = {
  all: ['onboarding'] as const,
  state: () => [...onboardingKeys.all, 'state'] as const,
  demo: () => [...onboardingKeys.all, 'demo'] as const,
  execution: (workspaceId: string) => [...onboardingKeys.all, 'execution', workspaceId] as const,
};

export const onboardingQuery = () =>
  queryOptions({ queryKey: onboardingKeys.state(), queryFn: () => data(api.GET('/v1/onboarding')) });
