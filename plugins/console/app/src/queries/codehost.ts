import { queryOptions } from '@tanstack/react-query';
import { api, data } from '../api/client';

/** Query keys of the code host: its status, an installation's repositories, connected repositories. */
export const codehostKeys = {
  all: ['codehost'] as const,
  status: () => [...codehostKeys.all, 'status'] as const,
  installationRepositories: (installationId: string) => [...codehostKeys.all, 'installation', installationId, 'repositories'] as const,
  repositories: (workspaceId: string) => [...codehostKeys.all, 'repositories', workspaceId] as const,
};

export const codehostStatusQuery = () => queryOptions({ queryKey: codehostKeys.status(), queryFn: () => data(api.GET('/v1/codehost')) });
