import type { AdapterModule } from '../core/contracts/adapter.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- modules differ in option types
type Loader = () => Promise<{ default: AdapterModule<any, any> }>;

/**
 * The adapters shipped with Patchwell, by the name config uses. A partner's adapter is named in
 * config by module path instead (`"./examples/connector-acme/index.ts"`).
 */
export const builtinAdapters: Record<string, Loader> = {
  'errors-sentry': () => import('./errors-sentry/index.js'),
};
