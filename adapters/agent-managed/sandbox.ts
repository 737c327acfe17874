import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import Joi from 'joi';
import { AdapterOptionsError } from '../../core/contracts/index.js';

export type SandboxMode = 'auto' | 'user' | 'namespace' | 'none';

/** `adapters.options["agent-managed"].sandbox`. */
export interface SandboxOptions {
  /** `auto` (default): namespace when unshare works here, else user when one is configured, else none (warned once). */
  mode: SandboxMode;
  /** The account the commands run as (name or uid); needs the service to run as root. Namespace mode as root defaults to `nobody`. */
  user?: string;
  /** Whether the commands reach the network (namespace mode only: false gives them a network namespace with loopback down). */
  network: boolean;
}

/** The `sandbox` option of the executors that run commands in a checkout (agent-managed, agent-model). */
export const sandboxOptionsSchema = Joi.object<SandboxOptions>({
  mode: Joi.string().valid('auto', 'user', 'namespace', 'none').default('auto'),
  user: Joi.string()
    .pattern(/^(?:[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?|\d{1,10})$/)
    .messages({ 'string.pattern.base': 'must be an account name or a numeric uid' }),
  network: Joi.boolean().default(true),
}).default();

/** Options of every executor that works in a checkout: where checkouts go, output kept as events, the sandbox. */
export interface CheckoutOptions {
  /** Where checkouts are made (default: the system temp directory). Each job gets a fresh one, removed afterwards. */
  workRoot?: string;
  /** Lines of output kept as job events per command run in the checkout (the rest is counted). */
  maxEventLines: number;
  /** Where the commands run: a namespace, another account, or as the service (docs/fixes.md, agent-managed). */
  sandbox: SandboxOptions;
}

/** Joi keys of CheckoutOptions, for an executor's schema to spread. */
export const checkoutOptionKeys = {
  workRoot: Joi.string(),
  maxEventLines: Joi.number().integer().min(10).max(100_000).default(2000),
  sandbox: sandboxOptionsSchema,
};

/** A local account the commands run as. */
export interface SandboxUser {
  name: string;
  uid: number;
  gid: number;
}

/** How the agent and test commands of a job are started. */
export interface Sandbox {
  /** What actually applies (never `auto`). */
  kind: 'namespace' | 'user' | 'none';
  /** The account the commands run as; null: the service's own. */
  user: SandboxUser | null;
  /** False only in a namespace without network. */
  network: boolean;
  /** The program and arguments that run `/bin/sh -c command`. */
  argv(command: string): [string, string[]];
  /** One line for the job's log. */
  describe(): string;
}

const isRoot = (): boolean => process.getuid?.() === 0;

/** Base flags: own user (mapped to the caller's uid, no capabilities left), PID and mount namespaces with a fresh /proc. */
const NS_VARIANTS: string[][] = [
  ['--user', '--map-current-user', '--pid', '--fork', '--kill-child', '--mount-proc'],
  // util-linux before 2.38 has no --map-current-user.
  ['--user', '--map-root-user', '--pid', '--fork', '--kill-child', '--mount-proc'],
];

const probes = new Map<string, string[] | null>();
let warnedNone = false;

/** Looks a local account up by name or uid (getent, so NSS accounts count; /etc/passwd without it). */
export function lookupUser(nameOrUid: string): SandboxUser | null {
  const parse = (line: string | undefined): SandboxUser | null => {
    const f = line?.trim().split(':');
    if (!f || f.length < 4 || !/^\d+$/.test(f[2]) || !/^\d+$/.test(f[3])) return null;
    return { name: f[0], uid: Number(f[2]), gid: Number(f[3]) };
  };
  try {
    return parse(
      execFileSync('getent', ['passwd', nameOrUid], {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        timeout: 5000,
      }).split('\n')[0],
    );
  } catch (err) {
    // getent exits 2 for an unknown key; only a missing getent falls back to the file.
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return null;
  }
  try {
    const lines = readFileSync('/etc/passwd', 'utf8').split('\n');
    const key = /^\d+$/.test(nameOrUid) ? 2 : 0;
    return parse(lines.find((l) => l.split(':')[key] === nameOrUid));
  } catch {
    return null;
  }
}

/**
 * Whether `unshare` can make the namespaces here, started as `user` (it runs unprivileged then);
 * the flags that work, or null. Probed once per account and network setting in a process.
 */
export function probeNamespaces(user: SandboxUser | null, network: boolean): string[] | null {
  const key = `${user?.uid ?? 'self'}:${network}`;
  if (probes.has(key)) return probes.get(key)!;
  let found: string[] | null = null;
  for (const variant of NS_VARIANTS) {
    const flags = network ? variant : [...variant, '--net'];
    const r = spawnSync('unshare', [...flags, '/bin/sh', '-c', 'exit 0'], {
      cwd: '/',
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: 'ignore',
      timeout: 10_000,
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
    });
    if (r.status === 0) {
      found = flags;
      break;
    }
  }
  probes.set(key, found);
  return found;
}

function optionsError(path: string, message: string): AdapterOptionsError {
  return new AdapterOptionsError(
    `invalid options for adapter agent-managed:\n  - config key adapters.options.agent-managed.sandbox.${path}: ${message}`,
    [{ path: `sandbox.${path}`, message }],
  );
}

function namespaced(flags: string[], user: SandboxUser | null, network: boolean): Sandbox {
  return {
    kind: 'namespace',
    user,
    network,
    argv: (command) => ['unshare', [...flags, '/bin/sh', '-c', command]],
    describe: () =>
      `namespace (user, PID and mount namespaces${network ? '' : ', no network'})${user ? ` as ${user.name} (uid ${user.uid})` : " as the service's user"}`,
  };
}

function asUser(user: SandboxUser): Sandbox {
  return {
    kind: 'user',
    user,
    network: true,
    argv: (command) => ['/bin/sh', ['-c', command]],
    describe: () => `user ${user.name} (uid ${user.uid}, gid ${user.gid})`,
  };
}

function none(): Sandbox {
  return {
    kind: 'none',
    user: null,
    network: true,
    argv: (command) => ['/bin/sh', ['-c', command]],
    describe: () => "none (the service's user; clean environment and process group only)",
  };
}

/**
 * Decides how the commands run, at start-up; a sandbox that cannot be had as configured throws an
 * AdapterOptionsError naming the key. As root, a namespace never runs the commands as root: they
 * run as `user`, or `nobody` (a user namespace mapped to root would still own root's files).
 */
export function resolveSandbox(opts: SandboxOptions, warn: (msg: string) => void): Sandbox {
  const root = isRoot();
  const configured = opts.user ? lookupUser(opts.user) : null;
  if (opts.user && !configured)
    throw optionsError(
      'user',
      `no local account "${opts.user}" (create it, e.g. useradd --system --no-create-home patchwell-agent)`,
    );
  if (opts.mode === 'none') return none();

  if (opts.mode === 'user') {
    if (!configured) throw optionsError('user', 'is required with mode "user"');
    if (!root)
      throw optionsError(
        'mode',
        `"user" needs the service to run as root (it runs as uid ${process.getuid?.() ?? '?'}) to start commands as ${configured.name}`,
      );
    return asUser(configured);
  }

  if (configured && !root) {
    if (opts.mode === 'namespace')
      throw optionsError(
        'user',
        `needs the service to run as root (it runs as uid ${process.getuid?.() ?? '?'}); leave it out to run the namespace as the service's user`,
      );
    warn(`agent-managed: sandbox.user ${configured.name} is ignored: the service does not run as root`);
  }
  const runAs = root ? (configured ?? lookupUser('nobody')) : null;
  if (root && !runAs) {
    if (opts.mode === 'namespace')
      throw optionsError(
        'user',
        'is required: the service runs as root and there is no "nobody" account to run the commands as',
      );
  }
  const flags = runAs || !root ? probeNamespaces(runAs, opts.network) : null;
  if (flags) return namespaced(flags, runAs, opts.network);
  if (opts.mode === 'namespace')
    throw optionsError(
      'mode',
      '"namespace": unshare cannot create user, PID and mount namespaces here (util-linux unshare missing, ' +
        'or user namespaces disabled by the kernel or the container)',
    );

  // auto without namespaces
  if (configured && root) return asUser(configured);
  if (!warnedNone) {
    warnedNone = true;
    warn(
      'agent-managed: no sandbox available (unshare cannot create namespaces here and no sandbox.user is ' +
        "configured for a service running as root); agent commands run as the service's user with a clean " +
        'environment only',
    );
  }
  return none();
}

/** Gives the job's directory to the sandbox account (symbolic links themselves, never what they point to). */
export function chownTree(dir: string, user: SandboxUser): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('chown', ['-R', '-P', '-h', `${user.uid}:${user.gid}`, dir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`chown of the job directory failed: ${err.trim().slice(0, 300)}`)),
    );
  });
}

/** The sandbox an executor decides on at start-up, warning through its logger (else a process warning). */
export function sandboxAtStart(opts: SandboxOptions | undefined, log: unknown, adapter: string): Sandbox {
  const warn = (log as { warn?: (msg: string) => void } | undefined)?.warn;
  return resolveSandbox(opts ?? { mode: 'auto', network: true }, (msg) => {
    const text = msg.replace(/^agent-managed:/, `${adapter}:`);
    if (warn) warn.call(log, text);
    else process.emitWarning(text);
  });
}
