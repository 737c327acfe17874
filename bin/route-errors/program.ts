/** The TypeScript program the walk reads: the sources of core/, plugins/ and adapters/, with the root's tsconfig. */
import { readdirSync, statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

const SOURCE_DIRS = ['core', 'plugins', 'adapters'];

function sourceFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name === 'test' || name.startsWith('.')) continue;
      const path = join(dir, name);
      if (statSync(path).isDirectory()) {
        // A folder with its own package (the console's front end) is another program.
        if (existsSync(join(path, 'package.json'))) continue;
        walk(path);
      } else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.test.ts')) {
        out.push(path);
      }
    }
  };
  for (const dir of SOURCE_DIRS) if (existsSync(join(root, dir))) walk(join(root, dir));
  return out.sort();
}

export function createProgram(root: string): ts.Program {
  const configPath = join(root, 'tsconfig.json');
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  const options: ts.CompilerOptions = { ...(parsed?.options ?? {}), noEmit: true, sourceMap: false };
  return ts.createProgram({ rootNames: sourceFiles(root), options });
}
