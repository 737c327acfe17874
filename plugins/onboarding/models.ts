import { tenantModel } from '../../core/data/model.js';

export type StepId = 'repository' | 'channels' | 'agent' | 'logs';
export interface StepState {
  status: 'todo' | 'done' | 'skipped';
  completed_at: string | null;
}

export interface AgentChoice {
  answer: string;
  detail: { codex_auth?: string; claude_auth?: string; ide_agent?: string };
  mode: string;
  agent: string;
  auth: string;
  transport: string | null;
  credential_pending: boolean;
  confirmed_at: string;
}

/** The wizard of one organization (created lazily by GET /v1/onboarding). */
export class OnboardingState extends tenantModel({
  table: 'onboarding_states',
  idPrefix: 'onb',
  json: ['steps', 'agent'],
}) {
  declare workspace_id: string | null;
  declare repository_id: string | null;
  declare steps: Partial<Record<StepId, StepState>>;
  declare agent: AgentChoice | null;
  declare demo_consent: 'granted' | 'refused' | null;
  declare demo_consent_at: Date | null;
  declare completed_at: Date | null;
  declare updated_at: Date;
}

/** A write-only secret of execution settings: sealed, only last4 in clear. */
export class OnboardingCredential extends tenantModel({
  table: 'onboarding_credentials',
  idPrefix: 'cred',
  updatedAt: false,
}) {
  declare workspace_id: string;
  declare kind: string;
  declare sealed: string;
  declare last4: string;
  declare rotated_at: Date | null;
}

/** Non-secret execution details of a workspace (runner labels, the public part of cloud auth). */
export class OnboardingExecution extends tenantModel({
  table: 'onboarding_execution',
  idPrefix: 'oex',
  json: ['runs_on', 'cloud_auth'],
}) {
  declare workspace_id: string;
  declare runs_on: string[];
  declare cloud_auth: Record<string, unknown>;
  declare credential_later: boolean;
  declare updated_at: Date;
}

export type DemoStatus = 'pending' | 'indexing' | 'choosing_case' | 'running' | 'completed' | 'failed';
export type CaseKind = 'real_error' | 'github_issue' | 'plausible_defect' | 'readme_question';

export interface DemoSource {
  kind: CaseKind;
  error_group_id?: string | null;
  issue_number?: number | null;
  issue_url?: string | null;
  path?: string | null;
  line_start?: number | null;
  line_end?: number | null;
  readme_path?: string | null;
}

export interface DemoEmail {
  from_name: string;
  from_address: string;
  subject: string;
  body: string;
  received_at: string;
}

/** One demo: a demo ticket (or several, after retries) followed through the fix loop. */
export class DemoRunModel extends tenantModel({
  table: 'onboarding_demo_runs',
  idPrefix: 'demo',
  json: ['source', 'email', 'repository', 'ticket_ids'],
}) {
  declare workspace_id: string;
  declare mode: 'managed' | 'workspace';
  declare status: DemoStatus;
  declare phase: string;
  declare outcome: string | null;
  declare case_kind: CaseKind | null;
  declare source: DemoSource | null;
  declare email: DemoEmail | null;
  declare repository: { full_name: string; html_url: string } | null;
  declare repository_id: string | null;
  declare ticket_id: string | null;
  declare ticket_ids: string[];
  declare indexed: boolean;
  declare started_at: Date;
  declare first_diagnosis_at: Date | null;
  declare completed_at: Date | null;
  declare cost_usd: number | string;
  declare cap_usd: number | string;
  declare error_code: string | null;
  declare error_detail: string | null;
  declare attempts: number;
  declare updated_at: Date;
}
