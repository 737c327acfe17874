import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { projectRoot } from '../../core/kernel/config.js';

/**
 * Whether an unprivileged account can reach this checkout. Under tap every child process gets
 * tap's loader (`NODE_OPTIONS=--import <checkout>/node_modules/@tapjs/processinfo/…`), sandboxed
 * ones included; when a directory above the checkout is closed to others (a `mktemp -d` clone
 * is 0700), an agent or test command run as `nobody` cannot start node. Sandbox tests skip and the
 * fix loop's tests run agent-managed without a sandbox then; production children get no loader.
 */
export function checkoutReachableByOthers(root: string = projectRoot): boolean {
  let dir = resolve(root);
  for (;;) {
    if ((statSync(dir).mode & 0o001) === 0) return false;
    const up = dirname(dir);
    if (up === dir) return true;
    dir = up;
  }
}

/** agent-managed options for tests that are not about the sandbox (see checkoutReachableByOthers). */
export const testSandboxOptions: Record<string, unknown> = checkoutReachableByOthers()
  ? {}
  : { sandbox: { mode: 'none' } };
