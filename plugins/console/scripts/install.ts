/**
 * The root `postinstall`: installs the console's own packages (plugins/console/app has its own
 * package-lock.json; front-end packages never go in the root package) and builds the bundle.
 * `npm ci` there only when its lock file changed since the last install, so a root
 * `npm install <pkg>` does not reinstall it.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appDir, buildBundle } from '../build.js';

const lock = readFileSync(join(appDir, 'package-lock.json'), 'utf8');
const installed = join(appDir, 'node_modules', '.package-lock.json');
const current = existsSync(installed) && sameLock(readFileSync(installed, 'utf8'), lock);
if (!current) {
  const npm = process.env.npm_execpath;
  const [cmd, args] = npm ? [process.execPath, [npm]] : ['npm', []];
  const res = spawnSync(cmd, [...args, 'ci', '--no-audit', '--no-fund'], { cwd: appDir, stdio: 'inherit' });
  if (res.status !== 0) process.exit(res.status ?? 1);
}
const bundle = await buildBundle({ log: (m) => console.log(m) });
console.log(bundle.built ? `console built in ${(bundle.ms / 1000).toFixed(1)} s` : 'console bundle is current');

/** npm writes node_modules/.package-lock.json with the installed packages of the lock file. */
function sameLock(installedJson: string, lockJson: string): boolean {
  try {
    const a = JSON.parse(installedJson) as { packages?: Record<string, { version?: string }> };
    const b = JSON.parse(lockJson) as { packages?: Record<string, { version?: string }> };
    const wanted = Object.entries(b.packages ?? {}).filter(([k]) => k !== '');
    return (
      wanted.every(([k, v]) => a.packages?.[k]?.version === v.version) &&
      Object.keys(a.packages ?? {}).length === wanted.length
    );
  } catch {
    return false;
  }
}
