/**
 * The environment the service runs git in: no system or user configuration, no prompts, the
 * service's own identity on commits, the C locale (stable messages to parse). Callers add their own
 * variables on top (a token header, another identity).
 */
export function cleanGitEnv(home: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Patchwell',
    GIT_AUTHOR_EMAIL: 'patchwell@localhost',
    GIT_COMMITTER_NAME: 'Patchwell',
    GIT_COMMITTER_EMAIL: 'patchwell@localhost',
    LC_ALL: 'C',
  };
}
