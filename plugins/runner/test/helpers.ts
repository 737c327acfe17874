import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import type { SignedUp } from '../../../test/helpers/accounts.js';
import type { Answer, Method, Schema } from '../../../test/helpers/api-types.js';
import type { Call } from '../../../test/helpers/call.js';
import { createWorkspace as createFixesWorkspace, HOST_SECRET, inject, MAIL_SECRET } from '../../fixes/test/helpers.js';

// The fix loop's test harness (repository, inbound email, polling, its rows); the runner adds bearer calls.
export {
  call,
  connectRepository,
  localHost,
  receiveEmail,
  uid,
  waitFor,
  type AttemptRow,
  type DiagnosisRow,
  type JobEventRow,
  type JobRow,
  type ReleaseRow,
} from '../../fixes/test/helpers.js';

export const LEASE_MS = 1500;

/** A whole service on the offline defaults with the runner executor next to the builtin one and short leases. */
export function startRunnerApp(t: Test): Promise<App> {
  return startTestApp(t, {
    adapters: {
      codeHost: 'codehost-local',
      agent: ['agent-builtin', 'agent-runner'],
      options: { 'mail-outbox': { webhookSecret: MAIL_SECRET }, 'codehost-local': { webhookSecret: HOST_SECRET } },
    },
    plugins: {
      fixes: { enabled: true, options: { pollMs: 100, leaseMs: LEASE_MS, backoffMs: [50, 100] } },
      runner: { enabled: true },
    },
  });
}

/** A runner's or job's call with `Authorization: Bearer <token>` (none without a token). */
export const bearer = <M extends Method, U extends string>(
  app: App,
  token: string | null,
  method: M,
  url: U,
  payload?: unknown,
): Promise<Call<Answer<M, U>>> => inject(app, method, url, token ? { authorization: `Bearer ${token}` } : {}, payload);

/** A workspace whose jobs run on its runner (execution_mode runner, github_actions transport). */
export const createWorkspace = (
  app: App,
  owner: SignedUp,
  name: string,
  settings: Record<string, unknown> = {},
): Promise<Schema<'Workspace'>> =>
  createFixesWorkspace(app, owner, name, { execution_mode: 'runner', runner_transport: 'github_actions', ...settings });

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const exec = promisify(execFile);

/** git as a runner runs it (no global config). */
export async function git(cwd: string, args: string[]): Promise<string> {
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: cwd,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Runner',
    GIT_AUTHOR_EMAIL: 'runner@example.test',
    GIT_COMMITTER_NAME: 'Runner',
    GIT_COMMITTER_EMAIL: 'runner@example.test',
  };
  const { stdout } = await exec('git', args, { cwd, env });
  return stdout;
}
