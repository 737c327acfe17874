import { spawn } from 'node:child_process';

/** The entry point and its loader: the sources under tsx, or `['bin/start.mjs']` (compiled dist/, `npm start`). */
export const TSX_ENTRY = ['--import', 'tsx', 'bin/patchwell.ts'];

/**
 * The service on its own port and data directory; resolves once it says ready, with what it printed
 * until then and its pid. `env` adds variables (e.g. PGLITE_TEMPLATE=false).
 */
export async function startService(
  port: number,
  dataDir: string,
  env: Record<string, string> = {},
  entry: string[] = TSX_ENTRY,
): Promise<{ stop: () => Promise<void>; log: string; pid: number }> {
  const child = spawn(process.execPath, ['--max-semi-space-size=64', ...entry, '--role', 'all'], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_BASE_URL: `http://localhost:${port}`,
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      seen = (seen + chunk.toString()).slice(-50_000);
      if (seen.includes('"msg":"ready:')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the service exited with ${code}:\n${seen.slice(-2000)}`)));
  });
  child.stdout.resume();
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return { stop, log: seen, pid: child.pid! };
}
