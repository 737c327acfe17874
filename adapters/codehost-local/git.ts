import { execFile } from 'node:child_process';
import { cleanGitEnv } from '../../core/security/git-env.js';

/** A failed git command: its arguments, exit code and stderr. */
export class GitError extends Error {
  override name = 'GitError';
  constructor(
    message: string,
    readonly args: string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface GitOptions {
  /** Repository directory (`--git-dir` for bare repositories). */
  gitDir?: string;
  cwd?: string;
  input?: Buffer | string;
  env?: Record<string, string>;
  /** Exit codes that are answers, not failures (e.g. 1 of `merge-tree` on conflicts). */
  okCodes?: number[];
  maxBuffer?: number;
}

/**
 * Runs git with execFile (never a shell), in a clean environment: no user or system config, no
 * prompts, a fixed identity unless the caller gives one. Output is returned as a Buffer.
 */
export function git(args: string[], opts: GitOptions = {}): Promise<{ stdout: Buffer; code: number }> {
  const full = opts.gitDir ? [`--git-dir=${opts.gitDir}`, ...args] : args;
  const env = { ...cleanGitEnv(process.env.HOME ?? '/tmp'), ...opts.env };
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      full,
      { cwd: opts.cwd, env, encoding: 'buffer', maxBuffer: opts.maxBuffer ?? 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : null
          : 0;
        if (!err || (code !== null && opts.okCodes?.includes(code))) return resolve({ stdout, code: code ?? 0 });
        const text = stderr.toString('utf8').trim();
        reject(new GitError(`git ${args[0]} failed: ${text || err.message}`, full, code, text));
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/** stdout of a git command as trimmed text. */
export async function gitText(args: string[], opts: GitOptions = {}): Promise<string> {
  return (await git(args, opts)).stdout.toString('utf8').trim();
}
