import type { AdapterLoader as Loader } from '../core/kernel/loader.js';

/**
 * The adapters shipped with Patchwell, by the name config uses. A partner's adapter is named in
 * config by module path instead (`"./examples/connector-acme/index.ts"`).
 */
export const builtinAdapters: Record<string, Loader> = {
  'agent-builtin': () => import('./agent-builtin/index.js'),
  'agent-managed': () => import('./agent-managed/index.js'),
  'agent-mcp': () => import('./agent-mcp/index.js'),
  'agent-model': () => import('./agent-model/index.js'),
  'agent-runner': () => import('./agent-runner/index.js'),
  'codehost-github': () => import('./codehost-github/index.js'),
  'codehost-local': () => import('./codehost-local/index.js'),
  'connector-cloud-logs': () => import('./connector-cloud-logs/index.js'),
  'connector-endpoint': () => import('./connector-endpoint/index.js'),
  'connector-error-tracker': () => import('./connector-error-tracker/index.js'),
  'connector-metrics': () => import('./connector-metrics/index.js'),
  'errors-sentry': () => import('./errors-sentry/index.js'),
  'identity-oidc': () => import('./identity-oidc/index.js'),
  'identity-saml': () => import('./identity-saml/index.js'),
  'mail-outbox': () => import('./mail-outbox/index.js'),
  'mail-smtp': () => import('./mail-smtp/index.js'),
  'mail-ses': () => import('./mail-ses/index.js'),
  'payment-local': () => import('./payment-local/index.js'),
  'payment-stripe': () => import('./payment-stripe/index.js'),
};
