import type { Request } from '@hapi/hapi';

export const OWNERS_ADMINS = { roles: ['owner', 'admin'] };

export function service<T>(request: Request, key: string): T {
  return request.app.scope.resolve<T>(key);
}
