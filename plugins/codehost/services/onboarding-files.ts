import type { CodehostOptions } from '../options.js';
import type { WorkspaceLike } from './deps.js';

/**
 * The files of the onboarding pull request: a CI workflow that runs the Patchwell runner when
 * the service dispatches a job (repository_dispatch) or by hand, and the repository's Patchwell
 * config. The agent key reaches the workflow as the repository secret set by PUT agent-key.
 */
export function onboardingFiles(
  opts: CodehostOptions,
  input: {
    baseUrl: string;
    workspace: WorkspaceLike;
    repository: { full_name: string; default_branch: string; runs_on: string[] };
  },
): Record<string, string> {
  const runsOn = input.repository.runs_on.length
    ? `[${input.repository.runs_on.map((l) => JSON.stringify(l)).join(', ')}]`
    : 'ubuntu-latest';
  const command = opts.onboarding.runCommand.replace(/\{base_url\}/g, input.baseUrl);
  const workflow = `# Added by Patchwell: runs support fixes in this repository's CI.
name: Patchwell
on:
  repository_dispatch:
    types: [patchwell-job]
  workflow_dispatch:
    inputs:
      job_id:
        description: Patchwell job id
        required: true
permissions:
  contents: write
  pull-requests: write
concurrency:
  group: patchwell-\${{ github.event.client_payload.job_id || inputs.job_id }}
jobs:
  patchwell:
    runs-on: ${runsOn}
    timeout-minutes: 60
    steps:
      - uses: actions/checkout@v4
        with:
          fetch-depth: 0
      - name: Run the Patchwell job
        run: ${command} --job "\${{ github.event.client_payload.job_id || inputs.job_id }}"
        env:
          PATCHWELL_URL: ${input.baseUrl}
          PATCHWELL_AGENT_KEY: \${{ secrets.${opts.agentKeySecretName} }}
`;
  const config = `# Patchwell settings for ${input.repository.full_name} (workspace ${input.workspace.slug}).
version: 1
workspace: ${input.workspace.slug}
default_branch: ${input.repository.default_branch}
${input.workspace.test_command ? `test_command: ${JSON.stringify(input.workspace.test_command)}\n` : ''}`;
  return { [opts.onboarding.workflowPath]: workflow, [opts.onboarding.configPath]: config };
}

export function onboardingBody(input: { workspaceName: string; files: string[]; secretName: string }): string {
  return [
    `This pull request sets up Patchwell for the workspace **${input.workspaceName}**.`,
    '',
    'It adds:',
    ...input.files.map((f) => `- \`${f}\``),
    '',
    `The workflow reads the agent key from the repository secret \`${input.secretName}\`, which Patchwell sets for you.`,
    'Merge it when you are ready; nothing runs until Patchwell dispatches a job.',
  ].join('\n');
}
