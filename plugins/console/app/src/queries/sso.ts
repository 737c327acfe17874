/** Query keys of single sign-on. */
export const ssoKeys = {
  all: ['sso'] as const,
  tile: (connectionId: string) => [...ssoKeys.all, 'tile', connectionId] as const,
};
