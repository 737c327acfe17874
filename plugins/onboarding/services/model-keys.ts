import { OnboardingCredential } from '../models.js';
import type { OnboardingDeps } from './deps.js';
import { sealContext } from './execution.js';

/** Credential kinds that hold a model provider's API key (the spec's credential kinds). */
export const MODEL_KEY_KINDS: readonly string[] = ['model_key_a', 'model_key_b', 'model_router_key'];

/** A workspace's model key in clear, for an executor that calls the model API itself (never logged). */
export interface ModelKey {
  credential_id: string;
  kind: string;
  secret: string;
  last4: string;
}

/**
 * Reads the model key a workspace's execution settings chose (agent_config.credential_id) for the
 * model-backed executor (adapters/agent-model). Container key `agentModelKeys`. Null when the
 * workspace has no credential, or one of another kind (an agent login file, cloud credentials).
 */
export class ModelKeys {
  constructor(private readonly d: Pick<OnboardingDeps, 'db' | 'secretBox' | 'workspaces'>) {}

  async keyFor(orgId: string, workspaceId: string): Promise<ModelKey | null> {
    const ws = await this.d.workspaces.get(orgId, workspaceId);
    const id = ws.agent_config?.credential_id;
    if (!id) return null;
    const row = await OnboardingCredential.query(this.d.db).forOrg(orgId).findById(id);
    if (!row || row.workspace_id !== workspaceId || !MODEL_KEY_KINDS.includes(row.kind)) return null;
    return {
      credential_id: row.id,
      kind: row.kind,
      secret: this.d.secretBox.decrypt(row.sealed, sealContext(row.id)),
      last4: row.last4,
    };
  }
}
