import type { RequestBody, Schema } from '../../api/types';

export type Workspace = Schema<'Workspace'>;
export type WorkspacePatch = RequestBody<'/v1/workspaces/{id}', 'patch'>;
type AgentConfig = NonNullable<WorkspacePatch['agent_config']>;

/** A form field's name: a PATCH field, or one key of agent_config (`agent_config.model`). */
export type FieldName = Exclude<keyof WorkspacePatch, 'agent_config'> | `agent_config.${keyof AgentConfig}`;

export interface FieldSpec {
  name: FieldName;
  kind: 'text' | 'textarea' | 'number' | 'select' | 'check' | 'lines' | 'multi';
  /** Enum values of the document (select, multi); `labelled` ones have a text under workspaces.options.<name>. */
  options?: readonly string[];
  labelled?: boolean;
  /** A select or text that may be empty, sent as null. */
  nullable?: boolean;
  step?: string;
  hint?: boolean;
}

export interface Group {
  id: 'general' | 'channels' | 'agent' | 'autonomy' | 'releases' | 'proactive' | 'slas' | 'reports' | 'oss';
  fields: FieldSpec[];
}

const AGENTS = ['builtin', 'other', ...Array.from({ length: 11 }, (_, i) => `agent_${i + 1}`)] as const;

/**
 * Every writable Workspace field of PATCH /v1/workspaces/{id}, grouped as a person thinks of
 * them. The channels group has no writable field of the workspace: it shows the mailbox and the
 * widget key (the channel switches are PATCH /v1/channels, the inbox settings' section).
 */
export const GROUPS: Group[] = [
  {
    id: 'general',
    fields: [
      { name: 'name', kind: 'text' },
      { name: 'client_name', kind: 'text', nullable: true, hint: true },
      { name: 'locale', kind: 'select', options: ['en', 'it'], labelled: true, hint: true },
      { name: 'brand_profile_id', kind: 'select', nullable: true, hint: true },
    ],
  },
  { id: 'channels', fields: [] },
  {
    id: 'agent',
    fields: [
      { name: 'execution_mode', kind: 'select', options: ['managed', 'runner', 'mcp'], labelled: true },
      { name: 'agent_id', kind: 'select', options: AGENTS },
      {
        name: 'auth_method',
        kind: 'select',
        options: ['api-key', 'account_login', 'cloud_a', 'cloud_b', 'subscription'],
        nullable: true,
      },
      { name: 'runner_transport', kind: 'select', options: ['github_actions', 'container'], nullable: true },
      { name: 'agent_config.model', kind: 'text', nullable: true },
      { name: 'agent_config.credential_id', kind: 'text', nullable: true, hint: true },
      {
        name: 'agent_config.effort',
        kind: 'select',
        options: ['low', 'medium', 'high'],
        labelled: true,
        nullable: true,
      },
      { name: 'agent_config.max_minutes', kind: 'number', nullable: true },
      { name: 'agent_config.max_cost_usd', kind: 'number', nullable: true, step: '0.01' },
      { name: 'managed_fixes_with_credits', kind: 'check', hint: true },
      { name: 'test_command', kind: 'text', nullable: true, hint: true },
    ],
  },
  {
    id: 'autonomy',
    fields: [
      { name: 'autonomy', kind: 'select', options: ['copilot', 'approve', 'autopilot'], labelled: true, hint: true },
      {
        name: 'autopilot_categories',
        kind: 'multi',
        options: ['usage', 'config', 'docs', 'bug', 'feature_request', 'unknown'],
        labelled: true,
        hint: true,
      },
      { name: 'confidence_threshold', kind: 'number', step: '0.05', hint: true },
      { name: 'share_policy', kind: 'select', options: ['snippets', 'references_only'], labelled: true, hint: true },
    ],
  },
  {
    id: 'releases',
    fields: [
      { name: 'release_strategy', kind: 'select', options: ['semver', 'calver', 'manual'], labelled: true },
      { name: 'merge_method', kind: 'select', options: ['squash', 'merge', 'rebase'], labelled: true },
      { name: 'auto_merge', kind: 'check' },
      { name: 'release_batching', kind: 'select', options: ['per_ticket', 'batched'], labelled: true },
      { name: 'changelog_enabled', kind: 'check' },
      { name: 'github_release_enabled', kind: 'check' },
    ],
  },
  {
    id: 'proactive',
    fields: [
      { name: 'proactive_enabled', kind: 'check', hint: true },
      { name: 'proactive_threshold_users', kind: 'number', hint: true },
      { name: 'proactive_monthly_fix_cap', kind: 'number' },
      { name: 'notify_affected_users', kind: 'check' },
      { name: 'critical_paths', kind: 'lines', hint: true },
      { name: 'patterns_opt_in', kind: 'check', hint: true },
    ],
  },
  {
    id: 'slas',
    fields: [
      { name: 'sla_first_response_minutes', kind: 'number' },
      { name: 'sla_resolution_minutes', kind: 'number' },
      { name: 'auto_close_days', kind: 'number', hint: true },
    ],
  },
  {
    id: 'reports',
    fields: [
      { name: 'report_recipients', kind: 'lines', hint: true },
      { name: 'report_intro', kind: 'textarea', nullable: true },
      { name: 'report_auto_send', kind: 'check' },
    ],
  },
  {
    id: 'oss',
    fields: [
      { name: 'oss_auto_close_issues', kind: 'check' },
      { name: 'oss_comments_per_hour', kind: 'number', hint: true },
    ],
  },
];

/** A form's value of one field: text for inputs and selects, a flag, or the chosen options. */
export type FormValue = string | boolean | string[];

function read(ws: Workspace, name: FieldName): unknown {
  if (name.startsWith('agent_config.')) return ws.agent_config[name.slice('agent_config.'.length) as keyof AgentConfig];
  return ws[name as keyof Workspace];
}

/** The form's starting values, from the workspace as the API answered it. */
export function initialValues(ws: Workspace, fields: FieldSpec[]): Record<string, FormValue> {
  const out: Record<string, FormValue> = {};
  for (const f of fields) {
    const v = read(ws, f.name);
    if (f.kind === 'check') out[f.name] = v === true;
    else if (f.kind === 'multi') out[f.name] = [...((v as string[] | null) ?? [])];
    else if (f.kind === 'lines') out[f.name] = ((v as string[] | null) ?? []).join('\n');
    // The other kinds hold a string or a number (null when unset).
    else out[f.name] = typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
  }
  return out;
}

function toApi(f: FieldSpec, v: FormValue): unknown {
  if (f.kind === 'check' || f.kind === 'multi') return v;
  if (f.kind === 'lines')
    return (v as string)
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean);
  const s = (v as string).trim();
  if (s === '' && f.nullable) return null;
  // A number the browser could not read is sent as typed: the API names the field in its 400.
  if (f.kind === 'number') return s === '' || Number.isNaN(Number(s)) ? s : Number(s);
  return f.kind === 'textarea' ? v : s;
}

/** The PATCH body of what changed in the form (agent_config as a partial object, merged by the API). */
export function changes(
  fields: FieldSpec[],
  before: Record<string, FormValue>,
  now: Record<string, FormValue>,
): WorkspacePatch {
  const body: Record<string, unknown> = {};
  const agent: Record<string, unknown> = {};
  for (const f of fields) {
    if (JSON.stringify(before[f.name]) === JSON.stringify(now[f.name])) continue;
    const value = toApi(f, now[f.name]!);
    if (f.name.startsWith('agent_config.')) agent[f.name.slice('agent_config.'.length)] = value;
    else body[f.name] = value;
  }
  if (Object.keys(agent).length > 0) body.agent_config = agent;
  return body;
}
