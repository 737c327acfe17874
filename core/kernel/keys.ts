/**
 * Container keys, in one place. Adapters of one extension point are registered under a prefixed
 * key (`channel:mail-ses`) plus the selected one (`channelAdapter`) and the list (`channelAdapters`).
 */
export const KEYS = {
  config: 'config',
  log: 'log',
  db: 'db',
  bus: 'bus',
  outbox: 'outbox',
  inbox: 'inbox',
  secretBox: 'secretBox',
  passwords: 'passwords',
  rateLimiter: 'rateLimiter',
  audit: 'audit',
  scheduler: 'scheduler',
  errorReporter: 'errorReporter',
  plugins: 'plugins',
  authResolvers: 'authResolvers',
  /** Request scope only: the authenticated principal, or null. */
  principal: 'principal',
  /** Request scope only: the hapi request. */
  request: 'request',
  /** Message scope only: the bus message being handled. */
  message: 'message',

  channelAdapter: 'channelAdapter',
  channelAdapters: 'channelAdapters',
  paymentProvider: 'paymentProvider',
  paymentProviders: 'paymentProviders',
  codeHost: 'codeHost',
  codeHosts: 'codeHosts',
  connectorAdapters: 'connectorAdapters',
  agentExecutors: 'agentExecutors',
  identityProviders: 'identityProviders',
} as const;

export type ContainerKey = (typeof KEYS)[keyof typeof KEYS];

/** Prefixed key of one adapter: `adapterKey('channel', 'mail-ses')` is `channel:mail-ses`. */
export const adapterKey = (kind: string, name: string): string => `${kind}:${name}`;
