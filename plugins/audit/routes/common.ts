import type { Request } from '@hapi/hapi';
import type { Cradle } from '../../../core/kernel/cradle.js';

export const OWNERS_ADMINS = { roles: ['owner', 'admin'] };

export function service<K extends keyof Cradle>(request: Request, key: K): Cradle[K] {
  return request.app.scope.resolve(key);
}
