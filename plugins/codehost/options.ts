import Joi from 'joi';

export interface LabelOption {
  name: string;
  color: string;
  description: string;
}

/** `config.plugins.codehost.options`, documented in docs/codehost.md. */
export interface CodehostOptions {
  /** Dashboard pages the browser is sent to (paths on server.publicBaseUrl). */
  pages: {
    /** After a code-host sign-in or link, unless the start asked for redirect_to. */
    afterSignIn: string;
    /** Sign-in page; failures arrive as `?error=<code>`. */
    signIn: string;
    /** Where the code host's setup redirect lands (then POST /v1/codehost/installations). */
    installed: string;
  };
  installStateTtlMinutes: number;
  signInStateTtlMinutes: number;
  /** Labels new open-source settings start with (POST /v1/repositories/{id}/labels creates them). */
  labels: { optIn: LabelOption; optOut: LabelOption };
  /** Name of the repository CI secret holding the agent key. */
  agentKeySecretName: string;
  onboarding: {
    branch: string;
    title: string;
    workflowPath: string;
    configPath: string;
    /** The command the workflow runs (the runner); `{base_url}` is replaced. */
    runCommand: string;
  };
  index: {
    /** Files larger than this are listed in the tree but not searched. */
    maxFileBytes: number;
    maxFiles: number;
    chunkLines: number;
    /** How often connected repositories are checked for a default branch that moved without a push event; 0 = never. */
    refreshMinutes: number;
  };
  webhookMaxBytes: number;
  /** Webhook deliveries (and their bodies) are kept this long for dedupe and inspection. */
  deliveryRetentionDays: number;
  /** How often queued comments are posted (within each workspace's oss_comments_per_hour). */
  commentFlushSeconds: number;
}

/** Where the code host's setup redirect lands: the service links the installation there (routes/setup.ts, docs/links.md). */
export const SETUP_PATH = '/codehost/setup';

const path = () =>
  Joi.string()
    .pattern(/^\/(?![/\\])\S*$/)
    .max(200);
const label = (name: string, color: string, description: string) =>
  Joi.object({
    name: Joi.string().min(1).max(50).default(name),
    color: Joi.string()
      .pattern(/^[0-9a-fA-F]{6}$/)
      .default(color),
    description: Joi.string().max(100).allow('').default(description),
  }).default();

export const codehostOptionsSchema = Joi.object<CodehostOptions>({
  pages: Joi.object({
    afterSignIn: path().default('/'),
    signIn: path().default('/login'),
    installed: path().default('/settings/code-host/installed'),
  }).default(),
  installStateTtlMinutes: Joi.number()
    .integer()
    .min(1)
    .max(24 * 60)
    .default(60),
  signInStateTtlMinutes: Joi.number().integer().min(1).max(60).default(10),
  labels: Joi.object({
    optIn: label('patchwell', '5319e7', 'Patchwell answers this'),
    optOut: label('patchwell-ignore', 'cfd3d7', 'Patchwell stays out of this'),
  }).default(),
  agentKeySecretName: Joi.string()
    .pattern(/^[A-Z_][A-Z0-9_]*$/)
    .default('PATCHWELL_AGENT_KEY'),
  onboarding: Joi.object({
    branch: Joi.string().max(100).default('patchwell/onboarding'),
    title: Joi.string().max(200).default('Set up Patchwell'),
    workflowPath: Joi.string().max(200).default('.github/workflows/patchwell.yml'),
    configPath: Joi.string().max(200).default('.patchwell.yml'),
    runCommand: Joi.string().max(500).default('npx --yes @patchwell/runner@1 run --server {base_url}'),
  }).default(),
  index: Joi.object({
    maxFileBytes: Joi.number()
      .integer()
      .min(1024)
      .default(256 * 1024),
    maxFiles: Joi.number().integer().min(1).default(5000),
    chunkLines: Joi.number().integer().min(5).max(500).default(40),
    refreshMinutes: Joi.number().integer().min(0).default(60),
  }).default(),
  webhookMaxBytes: Joi.number()
    .integer()
    .min(1024)
    .default(25 * 1024 * 1024),
  deliveryRetentionDays: Joi.number().integer().min(1).default(14),
  commentFlushSeconds: Joi.number().integer().min(1).default(60),
});
