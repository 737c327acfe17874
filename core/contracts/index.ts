/**
 * The extension points of the core and their shared types. Adapters and plugins import from here:
 * `import { AbstractChannelAdapter, type ChannelAdapter } from '../../core/contracts/index.js'`.
 */
import type { ExtensionPoint } from './adapter.js';
import type { ChannelAdapter } from './channel-adapter.js';
import type { ConnectorAdapter } from './connector-adapter.js';
import type { AgentExecutor } from './agent-executor.js';
import type { PaymentProvider } from './payment-provider.js';
import type { CodeHost } from './code-host.js';
import type { IdentityProvider } from './identity-provider.js';
import type { ErrorReporter } from './error-reporter.js';

export * from './adapter.js';
export * from './channel-adapter.js';
export * from './connector-adapter.js';
export * from './connector-event.js';
export * from './agent-executor.js';
export * from './payment-provider.js';
export * from './code-host.js';
export * from './identity-provider.js';
export * from './error-reporter.js';
/** Who acts and from where (`request.actor()`, `systemActor`): the type every plugin's services take. */
export type { Actor, SignedInActor, ClientRequest, RequestDetails, TrustProxy } from '../http/actor.js';
export { actorOfPrincipal, clientAddress, requestDetails, systemActor, userActor, userAgentOf } from '../http/actor.js';

/** The interface each extension point's adapters implement: `AdapterContracts['channel']` is ChannelAdapter. */
export interface AdapterContracts {
  channel: ChannelAdapter;
  connector: ConnectorAdapter;
  agent: AgentExecutor;
  payment: PaymentProvider;
  codeHost: CodeHost;
  identity: IdentityProvider;
  errorReporter: ErrorReporter;
}

/** The contract of one extension point (fails to compile if a point has no entry above). */
export type ContractOf<P extends ExtensionPoint> = AdapterContracts[P];
