import type { DemoService } from './services/demo.js';
import type { ModelKeys } from './services/model-keys.js';
import type { assertAllowed } from './services/rules.js';

/** What the onboarding plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    executionRules: { assertAllowed: typeof assertAllowed };
    onboardingDemo: DemoService;
    /** A workspace's model key in clear, for adapters/agent-model. */
    agentModelKeys: ModelKeys;
  }
}
