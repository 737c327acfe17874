import type { OnboardingCredential } from '../models.js';
import { type OnboardingRepositoryJson } from './deps.js';
import { iso } from '../../../core/http/times.js';

export function credentialJson(c: OnboardingCredential, inUse: Set<string>) {
  return {
    id: c.id,
    kind: c.kind,
    last4: c.last4,
    workspace_id: c.workspace_id,
    created_at: iso(c.created_at),
    rotated_at: iso(c.rotated_at),
    in_use: inUse.has(c.id),
  };
}

/** The OnboardingRepository shape out of the codehost plugin's repository answer. */
export function onboardingRepository(r: OnboardingRepositoryJson) {
  return {
    id: r.id,
    full_name: r.full_name,
    html_url: r.html_url,
    default_branch: r.default_branch,
    is_public: r.is_public,
    onboarding_pr: {
      number: r.onboarding_pr.number,
      url: r.onboarding_pr.url,
      status: r.onboarding_pr.status,
      requested_at: r.onboarding_pr.requested_at,
      error: r.onboarding_pr.error,
      title: r.onboarding_pr.title,
    },
    agent_key: { last4: r.agent_key.last4, set_at: r.agent_key.set_at },
    runs_on: r.runs_on ?? [],
    cloud_auth: r.cloud_auth ?? {},
  };
}

const SECRET_KEY = /(secret|password|token|key|credential|private)/i;

/** The part of a cloud_auth object that may be shown: secret-looking values leave as `…last4`. */
export function publicCloudAuth(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    if (SECRET_KEY.test(k) && !/_id$|^role|region/i.test(k)) out[k] = typeof v === 'string' ? `…${v.slice(-4)}` : '…';
    else if (v !== null && typeof v === 'object' && !Array.isArray(v))
      out[k] = publicCloudAuth(v as Record<string, unknown>);
    else out[k] = v;
  }
  return out;
}
