import { queryOptions, useMutation } from '@tanstack/react-query';
import { api, data } from '../api/client';

/** Query keys of the code host: its status, an installation's repositories, connected repositories. */
export const codehostKeys = {
  all: ['codehost'] as const,
  status: () => [...codehostKeys.all, 'status'] as const,
  installationRepositories: (installationId: string) =>
    [...codehostKeys.all, 'installation', installationId, 'repositories'] as const,
  repositories: (workspaceId: string) => [...codehostKeys.all, 'repositories', workspaceId] as const,
};

export const codehostStatusQuery = () =>
  queryOptions({ queryKey: codehostKeys.status(), queryFn: () => data(api.GET('/v1/codehost')) });

/** The repositories an installation reaches (the first 100 by name), connected or not. */
export const installationRepositoriesQuery = (installationId: string) =>
  queryOptions({
    queryKey: codehostKeys.installationRepositories(installationId),
    queryFn: () =>
      data(
        api.GET('/v1/codehost/installations/{id}/repositories', {
          params: { path: { id: installationId }, query: { limit: 100 } },
        }),
      ),
  });

const RETURN_KEY = 'pw.codehost.return';

/**
 * Starts an installation: the service's install URL (single-use state), then the code host's page,
 * which comes back to /settings/code-host/installed. `returnTo` is where that page sends the person
 * next (this browser tab remembers it); without it, onboarding.
 */
export function useInstallCodeHost(returnTo?: string) {
  return useMutation({
    mutationFn: () => data(api.POST('/v1/codehost/install')),
    onSuccess: (r) => {
      if (returnTo) sessionStorage.setItem(RETURN_KEY, returnTo);
      else sessionStorage.removeItem(RETURN_KEY);
      window.location.assign(r.url);
    },
  });
}

/** Where the installation's landing page goes next (each install sets or clears it). */
export function installReturn(): string {
  const to = sessionStorage.getItem(RETURN_KEY);
  return to && to.startsWith('/') && !to.startsWith('//') ? to : '/onboarding';
}
