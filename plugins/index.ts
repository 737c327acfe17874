import type { PluginLoader as Loader } from '../core/kernel/loader.js';

/**
 * The plugins shipped with Patchwell. Each is on unless `config.plugins.<name>.enabled` is false;
 * partners add theirs in config with `{ "module": "./path/to/plugin.ts" }`.
 */
export const builtinPlugins: Record<string, Loader> = {
  mail: () => import('./mail/index.js'),
  accounts: () => import('./accounts/index.js'),
  workspaces: () => import('./workspaces/index.js'),
  codehost: () => import('./codehost/index.js'),
  billing: () => import('./billing/index.js'),
  tickets: () => import('./tickets/index.js'),
  fixes: () => import('./fixes/index.js'),
  inbox: () => import('./inbox/index.js'),
  sso: () => import('./sso/index.js'),
  brand: () => import('./brand/index.js'),
  analytics: () => import('./analytics/index.js'),
  agency: () => import('./agency/index.js'),
  proactive: () => import('./proactive/index.js'),
  audit: () => import('./audit/index.js'),
  privacy: () => import('./privacy/index.js'),
  onboarding: () => import('./onboarding/index.js'),
  widget: () => import('./widget/index.js'),
  runner: () => import('./runner/index.js'),
  mcp: () => import('./mcp/index.js'),
  console: () => import('./console/index.js'),
};
